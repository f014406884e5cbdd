// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A Bloom filter of the hashes present in a history table, for the common case of a news server:
 * the Message-ID it has never seen. It can only say "surely absent" or "maybe", so answers stay
 * exact: a maybe goes to the tree. MD5 hashes are uniform already, so the probes come straight
 * from the hash's two halves (double hashing), with no hashing of our own.
 *
 * <p>A filter answers for a snapshot only if its revision lies in [{@link #validFrom},
 * {@link #covered}]: it holds every hash of the revision it was built from, and of each later
 * commit made through the table that built it. Bits are set before a commit is published and
 * {@code covered} moves after it, so a reader that sees the revision covered sees its bits. It
 * also answers for a newer snapshot whose entries tree has {@link #coveredVersion}: commits that
 * did not go through the table (another tree, the store's own shrink) left its entries as covered.
 */
final class PresenceFilter {
    private static final int PROBES = 7;
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;
    private final long mask;
    /** The revision the filter was built from. */
    final long validFrom;
    /** The newest revision whose every hash is in the filter. */
    volatile long covered;
    /** The entries tree's version ({@link io.mvbt.revisions.ReadView#treeVersion}) at {@link #covered}. */
    volatile long coveredVersion;
    /** Whether the build from {@link #validFrom} has finished. */
    volatile boolean ready;
    /** Hashes the filter was sized for; past that its false positives grow, so it is rebuilt. */
    final long capacity;

    /** A filter sized for {@code entries} (with room to grow) at about 10 to 20 bits per entry. */
    PresenceFilter(long entries, long validFrom, long version) {
        this.capacity = Math.max(1L << 16, entries + entries / 2);
        long bits = Long.highestOneBit(capacity * 10 - 1) << 1;
        this.words = new long[(int) Math.min(Integer.MAX_VALUE - 8, bits >>> 6)];
        this.mask = ((long) words.length << 6) - 1;
        this.validFrom = validFrom;
        this.covered = validFrom;
        this.coveredVersion = version;
    }

    /** Adds a hash; safe beside other adders and readers. */
    void add(byte[] hash) {
        long h1 = half(hash, 0);
        long h2 = half(hash, 8) | 1;
        for (int i = 0; i < PROBES; i++) {
            long bit = (h1 + i * h2) & mask;
            int word = (int) (bit >>> 6);
            long m = 1L << bit;
            if (((long) WORDS.getOpaque(words, word) & m) == 0) {
                WORDS.getAndBitwiseOr(words, word, m);
            }
        }
    }

    /** False if the hash was surely never added. */
    boolean mightContain(byte[] hash) {
        long h1 = half(hash, 0);
        long h2 = half(hash, 8) | 1;
        for (int i = 0; i < PROBES; i++) {
            long bit = (h1 + i * h2) & mask;
            if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether the filter may answer for a snapshot of {@code revision}. */
    boolean answersFor(long revision) {
        return ready && revision >= validFrom && revision <= covered;
    }

    /** Bytes the filter holds. */
    long bytes() {
        return (long) words.length * 8;
    }

    private static long half(byte[] hash, int from) {
        long v = 0;
        for (int i = from; i < from + 8; i++) {
            v = v << 8 | (hash[i] & 0xFF);
        }
        return v;
    }
}
