// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.lang.reflect.Method;

/**
 * Makes the stores opened next see a new boot, as after a power cut: a meta page written in the
 * running boot is trusted without its checksums (the page cache survived a mere crash), which a
 * state read off a simulated power cut must not be. The hook is package-private in revisions, whose
 * own power-cut tests call it directly.
 */
final class Reboot {
    private static final Method REBOOT;

    static {
        try {
            REBOOT = Class.forName("io.mvbt.revisions.BootId").getDeclaredMethod("reboot");
            REBOOT.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Reboot() {
    }

    static void now() {
        try {
            REBOOT.invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot simulate a reboot", e);
        }
    }
}
