// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * One changed key, copied out of the store (see {@link Snapshot#changes(Snapshot, Tree)}).
 *
 * @param oldValue null if the key was added
 * @param newValue null if the key was removed
 */
public record Change(String tree, byte[] key, byte[] oldValue, byte[] newValue) {
    /** What happened to the key. */
    public enum Kind { ADDED, REMOVED, CHANGED }

    public Kind kind() {
        return oldValue == null ? Kind.ADDED : newValue == null ? Kind.REMOVED : Kind.CHANGED;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Change c && tree.equals(c.tree) && Arrays.equals(key, c.key)
                && Arrays.equals(oldValue, c.oldValue) && Arrays.equals(newValue, c.newValue);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * tree.hashCode() + Arrays.hashCode(key)) + Arrays.hashCode(newValue);
    }

    @Override
    public String toString() {
        return kind() + " " + tree + " " + HexFormat.of().formatHex(key) + " (" + length(oldValue) + " -> "
                + length(newValue) + " bytes)";
    }

    private static String length(byte[] value) {
        return value == null ? "none" : Integer.toString(value.length);
    }
}
