// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

/**
 * Sizes of the torture runs: {@code -Dmvbt.profile=short} (CI, the default) or {@code long} (for
 * people, hours); a single size can be set with its own property.
 */
public final class Profile {
    private Profile() {
    }

    public static boolean isLong() {
        return "long".equals(System.getProperty("mvbt.profile"));
    }

    /** The value of {@code property}, else the short or long default. */
    public static int size(String property, int shortRun, int longRun) {
        return Integer.getInteger(property, isLong() ? longRun : shortRun);
    }
}
