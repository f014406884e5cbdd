// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;

/**
 * A set of page numbers as a bitmap, one bit per page of the store: a few megabytes for a store of
 * a hundred gigabytes. Keeps its cardinality so counts are O(1).
 */
final class PageSet {
    private long[] words = new long[16];
    private long cardinality;

    boolean get(long pageNo) {
        int w = (int) (pageNo >>> 6);
        return w < words.length && (words[w] & (1L << pageNo)) != 0;
    }

    /** Sets the bit; returns true if it changed. */
    boolean set(long pageNo) {
        int w = (int) (pageNo >>> 6);
        grow(w);
        long bit = 1L << pageNo;
        if ((words[w] & bit) != 0) {
            return false;
        }
        words[w] |= bit;
        cardinality++;
        return true;
    }

    /** Clears the bit; returns true if it changed. */
    boolean clear(long pageNo) {
        int w = (int) (pageNo >>> 6);
        if (w >= words.length) {
            return false;
        }
        long bit = 1L << pageNo;
        if ((words[w] & bit) == 0) {
            return false;
        }
        words[w] &= ~bit;
        cardinality--;
        return true;
    }

    /** An independent copy. */
    PageSet copy() {
        PageSet c = new PageSet();
        c.words = words.clone();
        c.cardinality = cardinality;
        return c;
    }

    /** Empties the set. */
    void clearAll() {
        Arrays.fill(words, 0);
        cardinality = 0;
    }

    long cardinality() {
        return cardinality;
    }

    /** First set bit at or after {@code from}, or -1. */
    long nextSetBit(long from) {
        int w = (int) (from >>> 6);
        if (w >= words.length) {
            return -1;
        }
        long word = words[w] & (-1L << from);
        while (true) {
            if (word != 0) {
                return ((long) w << 6) + Long.numberOfTrailingZeros(word);
            }
            if (++w >= words.length) {
                return -1;
            }
            word = words[w];
        }
    }

    /** First clear bit at or after {@code from}. */
    long nextClearBit(long from) {
        int w = (int) (from >>> 6);
        if (w >= words.length) {
            return from;
        }
        long word = ~words[w] & (-1L << from);
        while (true) {
            if (word != 0) {
                return ((long) w << 6) + Long.numberOfTrailingZeros(word);
            }
            if (++w >= words.length) {
                return (long) w << 6;
            }
            word = ~words[w];
        }
    }

    /** Last clear bit at or before {@code from}, or -1. */
    long previousClearBit(long from) {
        int w = (int) (from >>> 6);
        if (w >= words.length) {
            return from;
        }
        long word = ~words[w] & (-1L >>> (63 - (from & 63)));
        while (true) {
            if (word != 0) {
                return ((long) w << 6) + 63 - Long.numberOfLeadingZeros(word);
            }
            if (w-- == 0) {
                return -1;
            }
            word = ~words[w];
        }
    }

    /**
     * First run of {@code n} set bits that starts at or after {@code from}, ends before {@code limit},
     * and ends at or before {@code runEnd} of its start (the end of its memory range); -1 if none.
     */
    long findRun(int n, long from, long limit, java.util.function.LongUnaryOperator runEnd) {
        long start = nextSetBit(from);
        while (start >= 0 && start + n <= limit) {
            long rangeEnd = runEnd.applyAsLong(start);
            if (start + n > rangeEnd) {
                start = nextSetBit(rangeEnd);
                continue;
            }
            long end = nextClearBit(start);
            if (end - start >= n) {
                return start;
            }
            start = nextSetBit(end);
        }
        return -1;
    }

    /** The 64 bits starting at a multiple of 64. */
    long word(long firstBit) {
        int w = (int) (firstBit >>> 6);
        return w < words.length ? words[w] : 0;
    }

    private void grow(int w) {
        if (w >= words.length) {
            words = Arrays.copyOf(words, Math.max(w + 1, words.length * 2));
        }
    }
}
