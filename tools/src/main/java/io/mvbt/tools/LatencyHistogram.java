// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

/**
 * Latencies in nanoseconds, counted in log-linear buckets: exact below 64 ns, then 64 buckets per
 * power of two (within 1.6% of the value). Fixed size, no allocation per sample; one per thread,
 * merged after. Used by the history bench and by the bench beside the other stores.
 */
public final class LatencyHistogram {
    private static final int SUB_BITS = 6;
    private static final int SUB = 1 << SUB_BITS;
    private final long[] counts = new long[(64 - SUB_BITS + 1) * SUB];
    private long count;
    private long max;

    public void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[bucket(v)]++;
        count++;
        if (v > max) {
            max = v;
        }
    }

    public void add(LatencyHistogram other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        count += other.count;
        max = Math.max(max, other.max);
    }

    public long count() {
        return count;
    }

    public long max() {
        return max;
    }

    /** The smallest recorded value at or above which lies {@code 1 - q} of the samples (q in [0, 1]). */
    public long percentile(double q) {
        if (count == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * count);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= Math.max(1, rank)) {
                return Math.min(max, upperBound(i));
            }
        }
        return max;
    }

    public static int bucket(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int msb = 63 - Long.numberOfLeadingZeros(v);
        int shift = msb - SUB_BITS;
        return (shift + 1) * SUB + (int) ((v >>> shift) & (SUB - 1));
    }

    /** The largest value that falls in bucket {@code i}. */
    public static long upperBound(int i) {
        if (i < SUB) {
            return i;
        }
        int shift = i / SUB - 1;
        long low = ((long) SUB + i % SUB) << shift;
        return low + (1L << shift) - 1;
    }
}
