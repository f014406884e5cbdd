// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Bytes this process has caused to be written to storage ({@code write_bytes} of Linux's
 * {@code /proc/self/io}): counted when a page of the page cache turns dirty, by a write or a store
 * into a mapping, so a page rewritten before it reached the disk counts once. What
 * {@code /usr/bin/time -v} reports as "File system outputs" (in 512-byte blocks).
 */
final class BytesWritten {
    private static final Path IO = Path.of("/proc/self/io");

    private BytesWritten() {
    }

    /** The count so far, or -1 where the system does not keep it. */
    static long now() {
        try {
            for (String line : Files.readAllLines(IO)) {
                if (line.startsWith("write_bytes:")) {
                    return Long.parseLong(line.substring("write_bytes:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or no task I/O accounting.
        }
        return -1;
    }
}
