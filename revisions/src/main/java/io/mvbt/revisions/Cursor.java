// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import org.agrona.DirectBuffer;
import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.ClosedException;
import io.mvbt.btree.Keys;
import io.mvbt.btree.TreeCursor;
import io.mvbt.btree.TreeRoot;

/**
 * A position in one tree of a {@link Snapshot} or {@link WriteTxn}, moving both ways. Positioning
 * methods return whether the cursor now stands on an entry. {@link #key()} and {@link #value()} are
 * views of page memory, valid until the cursor moves; {@link #keyBytes()} and {@link #valueBytes()}
 * copy.
 *
 * <p>In a write transaction the cursor sees the transaction's own writes: after a change it finds
 * its key again. If its own entry was deleted, it stands between the neighbours: {@link #next()}
 * goes to the following entry and {@link #prev()} to the preceding one. Not thread-safe.
 */
public final class Cursor implements AutoCloseable {
    private final View view;
    private final Tree tree;
    private final WriteTxn txn;
    private final TreeCursor cursor = new TreeCursor();
    /** Key and value views handed out since the cursor last moved. */
    private final LentViews lent;
    private boolean closed;
    /** The transaction changed the tree since the cursor last looked. */
    private boolean stale;
    /** The cursor's entry was deleted; the tree cursor stands at the following entry (if any). */
    private boolean between;
    private byte[] savedKey = new byte[64];
    private int savedLength = -1;

    Cursor(View view, Tree tree, WriteTxn txn) {
        this.view = view;
        this.tree = tree;
        this.txn = txn;
        this.lent = view.lent.forCursor();
        TreeRoot root = view.existingRoot(tree);
        cursor.reset(view.reader(), root);
    }

    public Tree tree() {
        return tree;
    }

    /** Called by the transaction before it changes anything: remember the key to find again. */
    void beforeChange() {
        if (stale) {
            return;
        }
        stale = true;
        if (cursor.isPositioned() && !between) {
            int length = cursor.keyLength();
            if (savedKey.length < length) {
                savedKey = new byte[Math.max(length, savedKey.length * 2)];
            }
            UNSAFE.copyMemory(null, cursor.keyAddress(), savedKey, View.BYTE_BASE, length);
            savedLength = length;
        } else if (!between) {
            savedLength = -1;
        }
    }

    /**
     * Begins an operation of the cursor on its view ({@link View#checkUsable}); the caller ends it
     * with {@link View#done} in a {@code finally}.
     */
    private void ready() {
        if (closed) {
            throw new ClosedException("cursor over '" + tree.name() + "' is closed");
        }
        view.checkUsable();
        try {
            findAgainIfStale();
        } catch (RuntimeException | Error e) {
            view.done();
            throw e;
        }
    }

    private void findAgainIfStale() {
        if (stale) {
            stale = false;
            cursor.reset(view.reader(), view.existingRoot(tree));
            if (savedLength >= 0) {
                boolean found = cursor.seek(savedKey, View.BYTE_BASE, savedLength);
                between = !found || cursor.keyLength() != savedLength
                        || io.mvbt.btree.Keys.compare(null, cursor.keyAddress(), savedLength, savedKey, View.BYTE_BASE,
                                savedLength) != 0;
                if (!found) {
                    // Past the end: remember that prev() must land on the last entry.
                    cursor.unposition();
                }
            }
        }
    }

    private boolean landed(boolean positioned) {
        lent.revoke();
        between = false;
        if (!positioned) {
            savedLength = -1;
        }
        return positioned;
    }

    public boolean first() {
        ready();
        try {
            return landed(cursor.first());
        } finally {
            view.done();
        }
    }

    public boolean last() {
        ready();
        try {
            return landed(cursor.last());
        } finally {
            view.done();
        }
    }

    /** Moves to the first key {@code >= key}. */
    public boolean seek(byte[] key) {
        ready();
        try {
            view.checkKey(key.length);
            return landed(cursor.seek(key, View.BYTE_BASE, key.length));
        } finally {
            view.done();
        }
    }

    public boolean seek(DirectBuffer key) {
        ready();
        try {
            view.checkKey(key.capacity());
            return landed(cursor.seek(key, 0, key.capacity()));
        } finally {
            view.done();
        }
    }

    /** Moves to the last key {@code <= key}. */
    public boolean seekFloor(byte[] key) {
        ready();
        try {
            view.checkKey(key.length);
            return landed(cursor.seekFloor(key, View.BYTE_BASE, key.length));
        } finally {
            view.done();
        }
    }

    public boolean seekFloor(DirectBuffer key) {
        ready();
        try {
            view.checkKey(key.capacity());
            return landed(cursor.seekFloor(key, 0, key.capacity()));
        } finally {
            view.done();
        }
    }

    /**
     * Moves to the entry at index {@code position} of the tree (0-based, in key order) in O(log n),
     * without walking the entries before it.
     */
    public boolean seekPosition(long position) {
        ready();
        try {
            return landed(cursor.seekPosition(position));
        } finally {
            view.done();
        }
    }

    /** Index of the current entry in the tree (0-based, in key order), in O(log n). */
    public long position() {
        ready();
        try {
            checkOnEntry();
            return cursor.position();
        } finally {
            view.done();
        }
    }

    /** Moves {@code entries} forward (or back, if negative) in O(log n); false if that leaves the tree. */
    public boolean skip(long entries) {
        long target = position() + entries;
        return seekPosition(target);
    }

    public boolean next() {
        ready();
        try {
            if (between) {
                return landed(cursor.isPositioned());
            }
            return landed(cursor.next());
        } finally {
            view.done();
        }
    }

    public boolean prev() {
        ready();
        try {
            if (between) {
                return landed(cursor.isPositioned() ? cursor.prev() : cursor.last());
            }
            return landed(cursor.prev());
        } finally {
            view.done();
        }
    }

    /** Whether the cursor stands on an entry. */
    public boolean isPositioned() {
        ready();
        try {
            return cursor.isPositioned() && !between;
        } finally {
            view.done();
        }
    }

    /** Between {@link #ready()} and {@link View#done()}. */
    private void checkOnEntry() {
        if (between) {
            throw new IllegalStateException("the cursor's entry was deleted; move the cursor first");
        }
        if (!cursor.isPositioned()) {
            throw new IllegalStateException("the cursor is not positioned on an entry");
        }
    }

    /**
     * The current key, as a view of page memory valid until the cursor moves or closes, its view
     * closes, or (in a write transaction) the transaction changes anything; in the checked mode a
     * view read after that throws {@link IndexOutOfBoundsException}.
     */
    public DirectBuffer key() {
        ready();
        try {
            checkOnEntry();
            return lent.lend(cursor.key());
        } finally {
            view.done();
        }
    }

    /** The current value, as a view valid as long as {@link #key()}'s. */
    public DirectBuffer value() {
        ready();
        try {
            checkOnEntry();
            return lent.lend(cursor.value());
        } finally {
            view.done();
        }
    }

    /** Unsigned order of the current key against {@code key}, read in page memory (nothing allocated). */
    int compareKey(byte[] key) {
        ready();
        try {
            checkOnEntry();
            DirectBuffer k = cursor.key();
            return Keys.compare(k.byteArray(), k.addressOffset(), k.capacity(), key, View.BYTE_BASE, key.length);
        } finally {
            view.done();
        }
    }

    public byte[] keyBytes() {
        ready();
        try {
            checkOnEntry();
            DirectBuffer key = cursor.key();
            byte[] out = new byte[key.capacity()];
            key.getBytes(0, out);
            return out;
        } finally {
            view.done();
        }
    }

    public byte[] valueBytes() {
        ready();
        try {
            checkOnEntry();
            DirectBuffer value = cursor.value();
            byte[] out = new byte[value.capacity()];
            value.getBytes(0, out);
            return out;
        } finally {
            view.done();
        }
    }

    public int keyLength() {
        ready();
        try {
            checkOnEntry();
            return cursor.keyLength();
        } finally {
            view.done();
        }
    }

    public int valueLength() {
        ready();
        try {
            checkOnEntry();
            return cursor.valueLength();
        } finally {
            view.done();
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            lent.revoke();
            if (txn != null) {
                txn.forget(this);
            }
        }
    }
}
