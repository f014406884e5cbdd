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

    private void ready() {
        if (closed) {
            throw new ClosedException("cursor over '" + tree.name() + "' is closed");
        }
        view.checkUsable();
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
        return landed(cursor.first());
    }

    public boolean last() {
        ready();
        return landed(cursor.last());
    }

    /** Moves to the first key {@code >= key}. */
    public boolean seek(byte[] key) {
        ready();
        view.checkKey(key.length);
        return landed(cursor.seek(key, View.BYTE_BASE, key.length));
    }

    public boolean seek(DirectBuffer key) {
        ready();
        view.checkKey(key.capacity());
        return landed(cursor.seek(key, 0, key.capacity()));
    }

    /** Moves to the last key {@code <= key}. */
    public boolean seekFloor(byte[] key) {
        ready();
        view.checkKey(key.length);
        return landed(cursor.seekFloor(key, View.BYTE_BASE, key.length));
    }

    public boolean seekFloor(DirectBuffer key) {
        ready();
        view.checkKey(key.capacity());
        return landed(cursor.seekFloor(key, 0, key.capacity()));
    }

    /**
     * Moves to the entry at index {@code position} of the tree (0-based, in key order) in O(log n),
     * without walking the entries before it.
     */
    public boolean seekPosition(long position) {
        ready();
        return landed(cursor.seekPosition(position));
    }

    /** Index of the current entry in the tree (0-based, in key order), in O(log n). */
    public long position() {
        checkOnEntry();
        return cursor.position();
    }

    /** Moves {@code entries} forward (or back, if negative) in O(log n); false if that leaves the tree. */
    public boolean skip(long entries) {
        long target = position() + entries;
        return seekPosition(target);
    }

    public boolean next() {
        ready();
        if (between) {
            return landed(cursor.isPositioned());
        }
        return landed(cursor.next());
    }

    public boolean prev() {
        ready();
        if (between) {
            return landed(cursor.isPositioned() ? cursor.prev() : cursor.last());
        }
        return landed(cursor.prev());
    }

    /** Whether the cursor stands on an entry. */
    public boolean isPositioned() {
        ready();
        return cursor.isPositioned() && !between;
    }

    private void checkOnEntry() {
        ready();
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
        checkOnEntry();
        return lent.lend(cursor.key());
    }

    /** The current value, as a view valid as long as {@link #key()}'s. */
    public DirectBuffer value() {
        checkOnEntry();
        return lent.lend(cursor.value());
    }

    /** Unsigned order of the current key against {@code key}, read in page memory (nothing allocated). */
    int compareKey(byte[] key) {
        checkOnEntry();
        DirectBuffer k = cursor.key();
        return Keys.compare(k.byteArray(), k.addressOffset(), k.capacity(), key, View.BYTE_BASE, key.length);
    }

    public byte[] keyBytes() {
        checkOnEntry();
        DirectBuffer key = cursor.key();
        byte[] out = new byte[key.capacity()];
        key.getBytes(0, out);
        return out;
    }

    public byte[] valueBytes() {
        checkOnEntry();
        DirectBuffer value = cursor.value();
        byte[] out = new byte[value.capacity()];
        value.getBytes(0, out);
        return out;
    }

    public int keyLength() {
        checkOnEntry();
        return cursor.keyLength();
    }

    public int valueLength() {
        checkOnEntry();
        return cursor.valueLength();
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
