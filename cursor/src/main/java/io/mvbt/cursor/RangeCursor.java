// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import org.agrona.DirectBuffer;

import io.mvbt.btree.Keys;
import io.mvbt.revisions.Cursor;

/**
 * Walks the entries of a {@link Range} in its direction, without copying: {@link #key()} and
 * {@link #value()} are views of page memory, valid until the next {@link #next()}.
 *
 * <pre>{@code
 * try (RangeCursor c = Range.over(snapshot, tree).from(a).toExclusive(b).cursor()) {
 *     while (c.next()) {
 *         use(c.key(), c.value());
 *     }
 * }
 * }</pre>
 */
public final class RangeCursor implements AutoCloseable {
    private final Range range;
    private final Cursor cursor;
    private boolean started;
    private boolean done;

    RangeCursor(Range range, Cursor cursor) {
        this.range = range;
        this.cursor = cursor;
    }

    /** Moves to the next entry of the range; false once the range is exhausted. */
    public boolean next() {
        if (done) {
            return false;
        }
        boolean ok;
        if (!started) {
            started = true;
            ok = range.reversed() ? startBackward() : startForward();
        } else {
            ok = range.reversed() ? cursor.prev() : cursor.next();
        }
        if (!ok || !withinEnd()) {
            done = true;
            return false;
        }
        return true;
    }

    private boolean startForward() {
        byte[] from = range.lower();
        if (from == null) {
            return cursor.first();
        }
        if (!cursor.seek(from)) {
            return false;
        }
        if (!range.lowerInclusive() && equal(from)) {
            return cursor.next();
        }
        return true;
    }

    private boolean startBackward() {
        byte[] from = range.upper();
        if (from == null) {
            return cursor.last();
        }
        if (!cursor.seekFloor(from)) {
            return false;
        }
        if (!range.upperInclusive() && equal(from)) {
            return cursor.prev();
        }
        return true;
    }

    private boolean withinEnd() {
        byte[] end = range.reversed() ? range.lower() : range.upper();
        if (end == null) {
            return true;
        }
        int cmp = compare(end);
        boolean inclusive = range.reversed() ? range.lowerInclusive() : range.upperInclusive();
        if (range.reversed()) {
            return inclusive ? cmp >= 0 : cmp > 0;
        }
        return inclusive ? cmp <= 0 : cmp < 0;
    }

    private boolean equal(byte[] key) {
        return compare(key) == 0;
    }

    /** Current key compared with {@code key}. */
    private int compare(byte[] key) {
        DirectBuffer k = cursor.key();
        return Keys.compare(k.byteArray(), k.addressOffset(), k.capacity(), key,
                org.agrona.UnsafeAccess.UNSAFE.arrayBaseOffset(byte[].class), key.length);
    }

    /** The current key, as a view of page memory valid until the cursor moves. */
    public DirectBuffer key() {
        checkOnEntry();
        return cursor.key();
    }

    /** The current value, as a view valid until the cursor moves. */
    public DirectBuffer value() {
        checkOnEntry();
        return cursor.value();
    }

    public byte[] keyBytes() {
        checkOnEntry();
        return cursor.keyBytes();
    }

    public byte[] valueBytes() {
        checkOnEntry();
        return cursor.valueBytes();
    }

    /** The underlying cursor may stand on an entry past the range's end, which is not the range's. */
    private void checkOnEntry() {
        if (!started || done) {
            throw new IllegalStateException(started ? "the range is exhausted" : "call next() first");
        }
    }

    @Override
    public void close() {
        cursor.close();
    }
}
