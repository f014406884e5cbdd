// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

/** SplitMix64: a small fixed-seed generator, so every store sees the same sequence. */
public final class Rng {
    private long state;

    public Rng(long seed) {
        this.state = seed;
    }

    public long nextLong() {
        long z = (state += 0x9E3779B97F4A7C15L);
        return mix(z);
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Uniform in {@code [0, bound)} (modulo bias below bound / 2^64: nothing a benchmark notices). */
    public long nextLong(long bound) {
        return Long.remainderUnsigned(nextLong(), bound);
    }

    public int nextInt(int bound) {
        return (int) nextLong(bound);
    }
}
