// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.SplittableRandom;
/**
 * A seeded random permutation of {@code [0, n)} that needs no memory: a balanced Feistel network
 * over the smallest even power of two at least {@code n}, walked until the result is below n
 * (fewer than four steps on average). Random-order fills write every key exactly once, so later
 * phases know which keys exist.
 */
public final class Permutation {
    private static final int ROUNDS = 4;

    private final long n;
    private final int halfBits;
    private final long halfMask;
    private final long[] keys = new long[ROUNDS];

    public Permutation(long n, long seed) {
        if (n <= 0) {
            throw new IllegalArgumentException("permutation of " + n + " elements");
        }
        this.n = n;
        int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(n - 1));
        this.halfBits = (bits + 1) / 2;
        this.halfMask = (1L << halfBits) - 1;
        SplittableRandom rng = new SplittableRandom(seed);
        for (int i = 0; i < ROUNDS; i++) {
            keys[i] = rng.nextLong();
        }
    }

    /** The element at position {@code i}. */
    public long apply(long i) {
        long x = i;
        do {
            x = encrypt(x);
        } while (x >= n);
        return x;
    }

    private long encrypt(long x) {
        long left = x >>> halfBits;
        long right = x & halfMask;
        for (int r = 0; r < ROUNDS; r++) {
            long next = left ^ (mix(right ^ keys[r]) & halfMask);
            left = right;
            right = next;
        }
        return left << halfBits | right;
    }

    /** The round function: SplitMix64's finalizer, a cheap hash whose every output bit depends on every input bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
