// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * Makes the stores opened next see a new boot, as after a power cut: a meta page written in the
 * running boot is trusted without its checksums (the page cache survived a mere crash), which a
 * state read off a simulated power cut must not be. In the store's package, as the stress tests
 * are, to reach its test hook.
 */
public final class Reboot {
    private Reboot() {
    }

    public static void now() {
        BootId.reboot();
    }
}
