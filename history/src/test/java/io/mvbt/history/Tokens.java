// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

/** Test tokens: a distinct, recognisable token per number. */
final class Tokens {
    private Tokens() {
    }

    static StorageToken token(long n) {
        byte[] b = new byte[StorageToken.BYTES];
        b[0] = 3;
        b[1] = (byte) (n % 7);
        for (int i = 0; i < 8; i++) {
            b[2 + i] = (byte) (n >>> (56 - 8 * i));
            b[10 + i] = (byte) ((n * 0x9E3779B97F4A7C15L) >>> (56 - 8 * i));
        }
        return StorageToken.of(b);
    }

    static String id(long n) {
        return "<" + n + "." + Long.toHexString(n * 0x2545F4914F6CDD1DL) + "@test.invalid>";
    }
}
