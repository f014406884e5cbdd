// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;

import static org.agrona.UnsafeAccess.UNSAFE;

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
    /**
     * The flags word of the snapshot's slot in the reader table: its expiry (set by this process's
     * writer or by a writer elsewhere) is read there by every operation, in one load.
     */
    private final long flagsAddress;
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(Snapshot.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Closed by its owner, or by the close of its store, which sets this for every snapshot it has
     * open before it releases their slots ({@link Store#close}): so one load of this field tells an
     * operation whether it may still read, and whether what it read held.
     */
    private volatile boolean closed;

    Snapshot(Store store, Revision revision, int slot, long flagsAddress) {
        super(store);
        this.revision = revision;
        this.slot = slot;
        this.flagsAddress = flagsAddress;
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
            throw closedException();
        }
        boolean expired = (UNSAFE.getLongVolatile(null, flagsAddress) & ReaderRegistry.EXPIRED) != 0;
        // The reader table's memory is reachable through this snapshot's store until the load is done.
        Reference.reachabilityFence(this);
        if (expired) {
            throw new SnapshotExpiredException("snapshot of revision " + revision.revision + " has expired: the "
                    + "slow-reader policy expired it, or its registration with the writer elsewhere lapsed (see the "
                    + "log); the store is at revision " + store.revision() + "; close it and open a new one");
        }
    }

    private ClosedException closedException() {
        return store.isClosed()
                ? new ClosedException("snapshot of revision " + revision.revision + ": store " + store.describe()
                        + " is closed")
                : new ClosedException("snapshot of revision " + revision.revision + " is closed");
    }

    @Override
    void done() {
        // The page reads above must not move past the check; a volatile read alone would let them.
        VarHandle.acquireFence();
        if (closed) {
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

    /**
     * Reports what changed in {@code tree} from this snapshot's revision to {@code target}'s: each
     * key added, removed or given another value, in key order, with its old and new value (see
     * {@link DiffVisitor} for how long the views stay valid). Only pages the two revisions do not
     * share are read, so the cost follows the change, not the tree: {@link DiffStats#pagesRead()}
     * says what it was. {@code target} is usually newer; an older one gives the changes that undo
     * the newer revision's. A tree present in one revision only is reported as created (then its
     * entries as added) or dropped.
     *
     * @throws IllegalArgumentException if {@code target} is a snapshot of another {@code Store} object
     * @throws io.mvbt.TreeNotFoundException if neither revision has the tree
     */
    public DiffStats diff(Snapshot target, Tree tree, DiffVisitor visitor) {
        java.util.Objects.requireNonNull(visitor, "visitor must not be null");
        checkDiffable(target);
        checkUsable();
        try {
            target.checkUsable();
            try {
                TreeRoot older = rootOf(tree);
                TreeRoot newer = target.rootOf(tree);
                if (older == Revision.ABSENT && newer == Revision.ABSENT) {
                    throw new io.mvbt.TreeNotFoundException("neither revision " + revision() + " nor revision "
                            + target.revision() + " has a tree '" + tree.name() + "'");
                }
                return new RevisionDiff(this, target).tree(tree.name(), older, newer, visitor);
            } finally {
                target.done();
            }
        } finally {
            done();
        }
    }

    /**
     * Reports what changed in every tree from this snapshot's revision to {@code target}'s, tree by
     * tree in name order, as {@link #diff(Snapshot, Tree, DiffVisitor)} does for one; a tree only
     * {@code target} has is reported as created and its entries as added, a tree only this revision
     * has as dropped (without its keys).
     */
    public DiffStats diff(Snapshot target, DiffVisitor visitor) {
        java.util.Objects.requireNonNull(visitor, "visitor must not be null");
        checkDiffable(target);
        checkUsable();
        try {
            target.checkUsable();
            try {
                return new RevisionDiff(this, target).all(revision.catalog, revision.fresh, target.revision.catalog,
                        target.revision.fresh, visitor);
            } finally {
                target.done();
            }
        } finally {
            done();
        }
    }

    /**
     * Writes a compact copy of this snapshot's revision to a new store file at {@code target}, as
     * {@link Store#copyTo(java.nio.file.Path, StoreOptions, java.util.function.LongConsumer)} does for the newest: for a copy of a
     * named revision, such as the first link of a backup chain.
     */
    public void copyTo(java.nio.file.Path target, StoreOptions options, java.util.function.LongConsumer entriesCopied) {
        StoreCopy.copy(this, target, options, entriesCopied);
    }

    /** The changes of {@code tree} from this revision to {@code target}'s, copied: for tests and small diffs. */
    public java.util.List<Change> changes(Snapshot target, Tree tree) {
        java.util.List<Change> out = new java.util.ArrayList<>();
        diff(target, tree, (name, key, oldValue, newValue) -> out.add(new Change(name, bytes(key), bytes(oldValue),
                bytes(newValue))));
        return out;
    }

    private static byte[] bytes(org.agrona.DirectBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] copy = new byte[b.capacity()];
        b.getBytes(0, copy);
        return copy;
    }

    private void checkDiffable(Snapshot target) {
        java.util.Objects.requireNonNull(target, "target snapshot must not be null");
        if (target.store != store) {
            throw new IllegalArgumentException("cannot diff revision " + revision() + " of " + store.describe()
                    + " against a snapshot of another Store object (" + target.store.describe() + "): page numbers"
                    + " are shared only within one store");
        }
    }

    /** Whether the snapshot was closed, by its own close or its store's. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed && CLOSED.compareAndSet(this, false, true)) {
            lent.revoke();
            // Once: a second close from another thread must not release a slot a new snapshot took.
            store.release(slot, this);
        }
    }

    /**
     * The store closes: reads fail from now on. Its close calls this before it releases the slot,
     * and then releases it itself.
     */
    void storeClosed() {
        if (!closed && CLOSED.compareAndSet(this, false, true)) {
            lent.revoke();
        }
    }
}
