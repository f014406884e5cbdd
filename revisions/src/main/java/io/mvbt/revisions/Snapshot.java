// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.mvbt.ClosedException;
import io.mvbt.SnapshotExpiredException;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.TreeRoot;

/**
 * A read-only view of one committed revision. Opening one copies nothing and takes no lock the
 * writer waits on; later commits never change what it sees; its pages are not reused until it is
 * closed. A snapshot may be read from several threads at once (its cursors may not be shared).
 * Close it promptly: an open snapshot keeps the pages it can see from being reused.
 */
public final class Snapshot extends View implements AutoCloseable {
    private final Revision revision;
    private final int slot;
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(Snapshot.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile boolean closed;

    Snapshot(Store store, Revision revision, int slot) {
        super(store);
        this.revision = revision;
        this.slot = slot;
    }

    @Override
    public long revision() {
        return revision.revision;
    }

    /** When the revision was committed (epoch milliseconds). */
    public long commitMillis() {
        return revision.commitMillis;
    }

    Revision rev() {
        return revision;
    }

    @Override
    void checkUsable() {
        if (closed) {
            throw new ClosedException("snapshot of revision " + revision.revision + " is closed");
        }
        store.checkOpen();
        if (store.expired(slot)) {
            throw new SnapshotExpiredException("snapshot of revision " + revision.revision + " has expired: the "
                    + "slow-reader policy expired it, or its registration with the writer elsewhere lapsed (see the "
                    + "log); the store is at revision " + store.revision() + "; close it and open a new one");
        }
    }

    @Override
    void done() {
        // The page reads above must not move past the check; a volatile read alone would let them.
        VarHandle.acquireFence();
        if (closed || store.isClosed()) {
            throw new ClosedException("snapshot of revision " + revision.revision + " is closed, or its store "
                    + store.describe() + " closed during the read");
        }
    }

    @Override
    TreeRoot rootOf(Tree tree) {
        return store.rootOf(revision, tree);
    }

    @Override
    PageReader reader() {
        return revision.reader(store.access());
    }

    @Override
    TreeRoot catalog() {
        return revision.catalog;
    }

    @Override
    public Cursor cursor(Tree tree) {
        checkUsable();
        try {
            return new Cursor(this, tree, null);
        } finally {
            done();
        }
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed && CLOSED.compareAndSet(this, false, true)) {
            lent.revoke();
            // Once: a second close from another thread must not release a slot a new snapshot took.
            store.release(slot);
        }
    }
}
