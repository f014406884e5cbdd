// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Tree;

/**
 * A bounded range of one tree in one {@link ReadView} (a snapshot or a write transaction), in
 * either direction. Immutable: each bound returns a new range. Iterating copies each entry into a
 * {@link KeyValue}; {@link #cursor()} walks without copying.
 *
 * <pre>{@code
 * for (KeyValue kv : Range.over(snapshot, tree).from(a).toExclusive(b)) { ... }
 * long n = Range.over(snapshot, tree).from(a).reverse().stream().limit(10).count();
 * }</pre>
 *
 * Bounds compare as unsigned bytes. A bound of null is open.
 *
 * <p>Over a write transaction, an iteration reads the transaction as it stands at each step: it
 * meets keys the transaction puts ahead of its position, so a loop that always puts a key ahead
 * never ends. To change a tree by what it held, iterate a snapshot opened before the transaction
 * began, or collect the keys first.
 */
public final class Range implements Iterable<KeyValue> {
    private final ReadView view;
    private final Tree tree;
    private final byte[] lower;
    private final boolean lowerInclusive;
    private final byte[] upper;
    private final boolean upperInclusive;
    private final boolean reversed;

    private Range(ReadView view, Tree tree, byte[] lower, boolean lowerInclusive, byte[] upper,
            boolean upperInclusive, boolean reversed) {
        this.view = view;
        this.tree = tree;
        this.lower = lower;
        this.lowerInclusive = lowerInclusive;
        this.upper = upper;
        this.upperInclusive = upperInclusive;
        this.reversed = reversed;
    }

    /** Every entry of {@code tree}, ascending. */
    public static Range over(ReadView view, Tree tree) {
        return new Range(view, tree, null, true, null, true, false);
    }

    /** Keys {@code >= key}. */
    public Range from(byte[] key) {
        return new Range(view, tree, copy(key), true, upper, upperInclusive, reversed);
    }

    /** Keys {@code > key}. */
    public Range fromExclusive(byte[] key) {
        return new Range(view, tree, copy(key), false, upper, upperInclusive, reversed);
    }

    /** Keys {@code <= key}. */
    public Range to(byte[] key) {
        return new Range(view, tree, lower, lowerInclusive, copy(key), true, reversed);
    }

    /** Keys {@code < key}. */
    public Range toExclusive(byte[] key) {
        return new Range(view, tree, lower, lowerInclusive, copy(key), false, reversed);
    }

    /** The same keys, descending. */
    public Range reverse() {
        return new Range(view, tree, lower, lowerInclusive, upper, upperInclusive, !reversed);
    }

    byte[] lower() {
        return lower;
    }

    boolean lowerInclusive() {
        return lowerInclusive;
    }

    byte[] upper() {
        return upper;
    }

    boolean upperInclusive() {
        return upperInclusive;
    }

    boolean reversed() {
        return reversed;
    }

    /** Entries in the range, in O(log n) from the counts that branch pages keep. */
    public long count() {
        return Math.max(0, upperRank() - lowerRank());
    }

    /** Index in the tree of the first entry of the range (ascending). */
    private long lowerRank() {
        return lower == null ? 0 : view.rank(tree, lower, !lowerInclusive);
    }

    /** Index in the tree one past the last entry of the range (ascending). */
    private long upperRank() {
        return upper == null ? view.count(tree) : view.rank(tree, upper, upperInclusive);
    }

    /**
     * Up to {@code limit} entries starting {@code offset} entries into the range, in the range's
     * direction: a paged result ("entries 10,001 to 10,050") in O(log n + limit), without walking
     * the entries skipped.
     */
    public java.util.List<KeyValue> page(long offset, int limit) {
        if (offset < 0 || limit < 0) {
            throw new IllegalArgumentException("offset and limit must not be negative");
        }
        long first = lowerRank();
        long end = upperRank();
        java.util.List<KeyValue> out = new java.util.ArrayList<>(Math.min(limit, 1024));
        long start = reversed ? end - 1 - offset : first + offset;
        if (start < first || start >= end) {
            return out;
        }
        try (io.mvbt.revisions.Cursor c = view.cursor(tree)) {
            boolean ok = c.seekPosition(start);
            for (long at = start; ok && out.size() < limit && at >= first && at < end; at += reversed ? -1 : 1) {
                out.add(new KeyValue(c.keyBytes(), c.valueBytes()));
                ok = reversed ? c.prev() : c.next();
            }
        }
        return out;
    }

    /** A bound's own copy; null stays null (an open bound). */
    private static byte[] copy(byte[] key) {
        return key == null ? null : key.clone();
    }

    /** A cursor over the range, without copying; close it when done. */
    public RangeCursor cursor() {
        return new RangeCursor(this, view.cursor(tree));
    }

    /** Copies entries one by one; the cursor underneath is closed when the range is exhausted. */
    @Override
    public Iterator<KeyValue> iterator() {
        return new Copying(cursor());
    }

    /** The entries as a sequential stream; closing the stream closes the cursor. */
    public Stream<KeyValue> stream() {
        Copying it = new Copying(cursor());
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(it, Spliterator.ORDERED
                | Spliterator.NONNULL), false).onClose(it.cursor::close);
    }

    /** Walks a range cursor, copying each entry; closes the cursor once the range is exhausted. */
    private static final class Copying implements Iterator<KeyValue> {
        private final RangeCursor cursor;
        private boolean ready;
        private boolean more;

        Copying(RangeCursor cursor) {
            this.cursor = cursor;
        }

        @Override
        public boolean hasNext() {
            if (!ready) {
                more = cursor.next();
                ready = true;
                if (!more) {
                    cursor.close();
                }
            }
            return more;
        }

        @Override
        public KeyValue next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            ready = false;
            return new KeyValue(cursor.keyBytes(), cursor.valueBytes());
        }
    }
}
