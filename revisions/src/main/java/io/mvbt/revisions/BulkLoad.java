// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.ref.Reference;

import org.agrona.DirectBuffer;

import io.mvbt.ClosedException;
import io.mvbt.btree.TreeEditor;

/**
 * A sorted bulk load into one tree of a write transaction ({@link WriteTxn#bulkLoad}): entries in
 * strictly ascending key order are appended along the tree's right edge and its pages built
 * bottom-up, filled to the load's fill factor, with no search and no split per entry. The tree may
 * be empty or hold keys below the first one loaded.
 *
 * <p>A key out of order is an {@link IllegalArgumentException}, and the transaction can then only
 * be aborted: nothing half-loaded becomes visible. Closing the load (or committing) ends it; until
 * then the tree takes no other writes.
 */
public final class BulkLoad implements AutoCloseable {
    private final WriteTxn txn;
    private final Tree tree;
    private final TreeEditor.Loader loader;
    private boolean finished;

    BulkLoad(WriteTxn txn, Tree tree, TreeEditor.Loader loader) {
        this.txn = txn;
        this.tree = tree;
        this.loader = loader;
    }

    public Tree tree() {
        return tree;
    }

    /** Adds an entry; its key must sort after every key already in the tree or added. */
    public void add(byte[] key, byte[] value) {
        check(key.length);
        try {
            loader.add(key, View.BYTE_BASE, key.length, value, View.BYTE_BASE, value.length);
            if (txn.redo() != null) {
                txn.redo().loadAdd(key, View.BYTE_BASE, key.length, value, View.BYTE_BASE, value.length);
            }
        } catch (RuntimeException e) {
            throw txn.poisoned(e);
        } finally {
            txn.done();
        }
    }

    /** Adds an entry from the bytes of two buffers, read during the call only. */
    public void add(DirectBuffer key, DirectBuffer value) {
        check(key.capacity());
        try {
            loader.add(key.byteArray(), key.addressOffset(), key.capacity(), value.byteArray(), value.addressOffset(),
                    value.capacity());
            if (txn.redo() != null) {
                txn.redo().loadAdd(key.byteArray(), key.addressOffset(), key.capacity(), value.byteArray(),
                        value.addressOffset(), value.capacity());
            }
        } catch (RuntimeException e) {
            throw txn.poisoned(e);
        } finally {
            Reference.reachabilityFence(key);
            Reference.reachabilityFence(value);
            txn.done();
        }
    }

    /** Begins an operation of the transaction ({@link View#checkUsable}); the caller runs {@link View#done}. */
    private void check(int keyLength) {
        if (finished) {
            throw new ClosedException("bulk load into '" + tree.name() + "' has ended");
        }
        txn.checkUsable();
        try {
            txn.checkKey(keyLength);
        } catch (RuntimeException e) {
            txn.done();
            throw e;
        }
    }

    /** Entries added so far. */
    public long added() {
        return loader.added();
    }

    /** Ends the load; the tree shows the entries to the rest of the transaction. */
    @Override
    public void close() {
        if (finished) {
            return;
        }
        finished = true;
        // A transaction that ended (a close of the store aborted it, say) has dropped the load's pages.
        if (!txn.tryEnter()) {
            return;
        }
        try {
            loader.finish();
            txn.loadEnded(this);
        } finally {
            txn.done();
        }
    }
}
