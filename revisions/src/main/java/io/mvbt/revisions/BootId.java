// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The identity of the running operating-system boot (Linux: /proc/sys/kernel/random/boot_id). A
 * meta page written in this boot may be trusted without checksums after a process crash, since
 * the page cache survived (libmdbx's reasoning); after a reboot only checksummed pages are.
 * Where the boot id cannot be read it is zero, which never matches.
 */
final class BootId {
    static volatile long HIGH;
    static volatile long LOW;

    static {
        long high = 0;
        long low = 0;
        try {
            String text = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            UUID id = UUID.fromString(text);
            high = id.getMostSignificantBits();
            low = id.getLeastSignificantBits();
        } catch (Exception e) {
            // Unknown: only durable or checksummed commits are trusted after a crash.
        }
        HIGH = high;
        LOW = low;
    }

    private BootId() {
    }

    /** Tests only: behave as after a reboot, so that metas written so far count as another boot's. */
    static void reboot() {
        java.util.Random random = new java.util.Random();
        HIGH = random.nextLong() | 1;
        LOW = random.nextLong();
    }

    static boolean known() {
        return HIGH != 0 || LOW != 0;
    }

    static boolean isCurrent(long high, long low) {
        return known() && high == HIGH && low == LOW;
    }
}
