// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.util.Arrays;
import java.util.Random;

/** Keys for bulk loads in the model tests: each above the last, of any length up to the limit. */
public final class AscendingKeys {
    private AscendingKeys() {
    }

    /**
     * A key of {@code length} bytes (at most {@code max}) above {@code last}, or above it by one
     * byte more if none of that length is; null if no key up to {@code max} bytes is above it.
     */
    public static byte[] above(byte[] last, int length, int max, Random r) {
        if (last == null) {
            byte[] k = new byte[length];
            r.nextBytes(k);
            return k;
        }
        if (length > last.length) {
            byte[] k = Arrays.copyOf(last, length);
            for (int i = last.length; i < length; i++) {
                k[i] = (byte) r.nextInt(256);
            }
            return k;
        }
        // The first `length` bytes of last, plus one: above last wherever the carry stops.
        byte[] k = Arrays.copyOf(last, length);
        for (int i = length - 1; i >= 0; i--) {
            if (k[i] != (byte) 0xff) {
                k[i]++;
                return k;
            }
            k[i] = 0;
        }
        // All 0xff: only a longer key sorts above.
        return last.length < max ? Arrays.copyOf(last, last.length + 1) : null;
    }
}
