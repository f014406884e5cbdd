// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Tree;
import java.io.IOException;
import java.util.Arrays;
import org.agrona.DirectBuffer;
import org.apache.directory.api.ldap.model.cursor.AbstractCursor;
import org.apache.directory.api.ldap.model.cursor.CursorException;
import org.apache.directory.api.ldap.model.cursor.InvalidCursorPositionException;

/**
 * An ApacheDS cursor over the keys {@code [from, to)} of one mvbt tree, read on the view of one
 * transaction. ApacheDS positions cursors in gaps ({@code before(e)}: next() returns the first
 * element at or after e, previous() the last before it); a gap is kept as the smallest key on
 * its right and resolved by the first move, so a cursor costs one descent to position and one
 * step per element, either way.
 */
final class TreeRangeCursor<T> extends AbstractCursor<T> {
    /** How elements map onto the tree's keys. */
    interface Mapping<T> {
        T decode(Cursor at);

        /** The smallest key at or after {@code element}. */
        byte[] lowerBound(T element);

        /** The smallest key after {@code element} (and every key equal to it); null if none. */
        byte[] upperBound(T element);
    }

    private enum State { BEFORE_FIRST, AFTER_LAST, GAP, ON }

    private final PartitionView txn;
    private final Cursor cursor;
    private final byte[] from;
    private final byte[] to;
    private final Mapping<T> mapping;
    private State state = State.BEFORE_FIRST;
    private byte[] gap;
    private T current;

    /** {@code from} and {@code to} null for no bound. The cursor holds {@code txn} until closed. */
    TreeRangeCursor(PartitionView txn, Tree tree, byte[] from, byte[] to, Mapping<T> mapping) {
        txn.retain();
        this.txn = txn;
        try {
            this.cursor = txn.view().cursor(tree);
        } catch (RuntimeException e) {
            txn.release();
            throw e;
        }
        this.from = from;
        this.to = to;
        this.mapping = mapping;
    }

    @Override
    public boolean available() {
        return state == State.ON;
    }

    @Override
    public void before(T element) throws CursorException {
        checkNotClosed();
        toGap(mapping.lowerBound(element));
    }

    @Override
    public void after(T element) throws CursorException {
        checkNotClosed();
        byte[] key = mapping.upperBound(element);
        if (key == null) {
            afterLast();
        } else {
            toGap(key);
        }
    }

    private void toGap(byte[] key) {
        gap = key;
        current = null;
        state = State.GAP;
    }

    @Override
    public void beforeFirst() throws CursorException {
        checkNotClosed();
        current = null;
        state = State.BEFORE_FIRST;
    }

    @Override
    public void afterLast() throws CursorException {
        checkNotClosed();
        current = null;
        state = State.AFTER_LAST;
    }

    @Override
    public boolean first() throws CursorException {
        beforeFirst();
        return next();
    }

    @Override
    public boolean last() throws CursorException {
        afterLast();
        return previous();
    }

    @Override
    public boolean next() throws CursorException {
        checkNotClosed();
        boolean on;
        switch (state) {
            case BEFORE_FIRST:
                on = from == null ? cursor.first() : cursor.seek(from);
                break;
            case GAP:
                on = cursor.seek(from != null && compare(gap, from) < 0 ? from : gap);
                break;
            case ON:
                on = cursor.next();
                break;
            default:
                return false;
        }
        return land(on, State.AFTER_LAST);
    }

    @Override
    public boolean previous() throws CursorException {
        checkNotClosed();
        boolean on;
        switch (state) {
            case AFTER_LAST:
                on = to == null ? cursor.last() : seekBelow(to);
                break;
            case GAP:
                on = seekBelow(to != null && compare(to, gap) < 0 ? to : gap);
                break;
            case ON:
                on = cursor.prev();
                break;
            default:
                return false;
        }
        return land(on, State.BEFORE_FIRST);
    }

    /** The last key below {@code key}. */
    private boolean seekBelow(byte[] key) {
        return cursor.seek(key) ? cursor.prev() : cursor.last();
    }

    private boolean land(boolean on, State off) {
        if (on && inRange(cursor.key(), cursor.keyLength())) {
            current = mapping.decode(cursor);
            state = State.ON;
            return true;
        }
        current = null;
        state = off;
        return false;
    }

    private boolean inRange(DirectBuffer key, int length) {
        return (from == null || compare(key, length, from) >= 0) && (to == null || compare(key, length, to) < 0);
    }

    @Override
    public T get() throws CursorException {
        checkNotClosed();
        if (state != State.ON) {
            throw new InvalidCursorPositionException("the cursor stands on no element");
        }
        return current;
    }

    @Override
    public void close() throws IOException {
        if (!isClosed()) {
            release();
        }
        super.close();
    }

    @Override
    public void close(Exception cause) throws IOException {
        if (!isClosed()) {
            release();
        }
        super.close(cause);
    }

    private void release() {
        try {
            cursor.close();
        } finally {
            txn.release();
        }
    }

    private static int compare(DirectBuffer a, int length, byte[] b) {
        int n = Math.min(length, b.length);
        for (int i = 0; i < n; i++) {
            int x = (a.getByte(i) & 0xFF) - (b[i] & 0xFF);
            if (x != 0) {
                return x;
            }
        }
        return length - b.length;
    }

    private static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }
}
