// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.util.NoSuchElementException;

import org.roaringbitmap.longlong.PeekableLongIterator;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * An immutable sorted set of 64-bit entry ids: what an index scan gathers on one snapshot and what
 * the filter algebra combines. Backed by a {@link Roaring64Bitmap}, so intersections, unions and
 * differences run container by container, and rank/select make positions cheap. Ids are compared
 * as unsigned numbers; the directory only hands out ids from 1 up.
 *
 * <p>Build one with {@link #builder()}; combine with {@link #and}, {@link #or} and {@link #andNot},
 * which return new sets and leave their operands unchanged.
 */
public final class CandidateSet {
    private static final CandidateSet EMPTY = new CandidateSet(new Roaring64Bitmap());

    private final Roaring64Bitmap ids;
    private final long size;

    private CandidateSet(Roaring64Bitmap ids) {
        this.ids = ids;
        this.size = ids.getLongCardinality();
    }

    public static CandidateSet empty() {
        return EMPTY;
    }

    public static CandidateSet of(long... ids) {
        Builder b = builder();
        for (long id : ids) {
            b.add(id);
        }
        return b.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects ids in any order; {@link #build()} may be called once. */
    public static final class Builder {
        private Roaring64Bitmap ids = new Roaring64Bitmap();

        public Builder add(long id) {
            ids.addLong(id);
            return this;
        }

        public CandidateSet build() {
            if (ids == null) {
                throw new IllegalStateException("this builder was already built");
            }
            Roaring64Bitmap built = ids;
            ids = null;
            built.runOptimize();
            return new CandidateSet(built);
        }
    }

    /** Number of ids, in O(1). */
    public long size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public boolean contains(long id) {
        return ids.contains(id);
    }

    /** The smallest id; {@link NoSuchElementException} when empty. */
    public long first() {
        if (size == 0) {
            throw new NoSuchElementException("the candidate set is empty");
        }
        return ids.first();
    }

    /** The largest id; {@link NoSuchElementException} when empty. */
    public long last() {
        if (size == 0) {
            throw new NoSuchElementException("the candidate set is empty");
        }
        return ids.last();
    }

    /** Number of ids smaller than {@code id} (the position {@code id} has or would have). */
    public long rankBelow(long id) {
        return id == 0 ? 0 : ids.rankLong(id - 1);
    }

    /** The id at {@code position} (0-based, ascending). */
    public long select(long position) {
        if (position < 0 || position >= size) {
            throw new IndexOutOfBoundsException("position " + position + " outside a set of " + size + " ids");
        }
        return ids.select(position);
    }

    /** Ids in both sets. */
    public CandidateSet and(CandidateSet other) {
        if (isEmpty() || other.isEmpty()) {
            return EMPTY;
        }
        return new CandidateSet(Roaring64Bitmap.and(ids, other.ids));
    }

    /** Ids in either set. */
    public CandidateSet or(CandidateSet other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        return new CandidateSet(Roaring64Bitmap.or(ids, other.ids));
    }

    /** Ids in this set and not in {@code other}. */
    public CandidateSet andNot(CandidateSet other) {
        if (isEmpty() || other.isEmpty()) {
            return this;
        }
        return new CandidateSet(Roaring64Bitmap.andNot(ids, other.ids));
    }

    /** Ascending ids from the smallest. */
    public PeekableLongIterator iterator() {
        return ids.getLongIterator();
    }

    /** Ascending ids {@code >= from}. */
    public PeekableLongIterator iteratorFrom(long from) {
        return ids.getLongIteratorFrom(from);
    }

    /** Descending ids from the largest. */
    public PeekableLongIterator reverseIterator() {
        return ids.getReverseLongIterator();
    }

    /** Descending ids {@code <= from}. */
    public PeekableLongIterator reverseIteratorFrom(long from) {
        return ids.getReverseLongIteratorFrom(from);
    }

    public long[] toArray() {
        return ids.toArray();
    }

    /** Bytes the set occupies in memory. */
    public long sizeInBytes() {
        return ids.getLongSizeInBytes();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CandidateSet other && size == other.size && ids.equals(other.ids);
    }

    @Override
    public int hashCode() {
        return ids.hashCode();
    }

    @Override
    public String toString() {
        return size <= 16 ? ids.toString() : "{" + size + " ids from " + first() + " to " + last() + "}";
    }
}
