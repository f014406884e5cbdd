// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.util.Arrays;

/** Bounds of byte-ordered key ranges. */
final class KeyBounds {
    private KeyBounds() {
    }

    /** The smallest key greater than {@code key}: itself followed by a zero byte. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    /** The smallest key greater than every key that starts with {@code prefix}; null if none is. */
    static byte[] prefixEnd(byte[] prefix) {
        int n = prefix.length;
        while (n > 0 && prefix[n - 1] == (byte) 0xFF) {
            n--;
        }
        if (n == 0) {
            return null;
        }
        byte[] end = Arrays.copyOf(prefix, n);
        end[n - 1]++;
        return end;
    }
}
