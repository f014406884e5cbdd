// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.Durability;
import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.WriteTxn;
import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.directory.server.core.api.partition.PartitionWriteTxn;

/**
 * A write transaction: one mvbt write transaction for an LDAP modification, the entry and every
 * index it touches, committed together or not at all. Its reads see its own changes. Closing it
 * without a commit aborts it (a failed modification changes nothing).
 *
 * <p>The mvbt transaction (and with it the store's one writer permit) is taken at the first read
 * or write, not when ApacheDS begins the transaction: ApacheDS's rename begins a write
 * transaction it never uses nor closes, then a second one for the work.
 */
final class WriteTxnAdapter extends PartitionWriteTxn implements PartitionView {
    /**
     * The stores whose writer this thread holds in a transaction not yet ended. A second
     * transaction of such a store on this thread would wait for a permit only this thread can
     * give back: it fails at once instead of after the writer timeout.
     */
    private static final ThreadLocal<Set<Store>> HELD =
            ThreadLocal.withInitial(() -> Collections.newSetFromMap(new IdentityHashMap<>()));

    private final Store store;
    private final Supplier<WriteTxn> begin;
    private final Durability durability;
    private final WriteTxnAdapter outer;
    private WriteTxn txn;
    private boolean finished;

    WriteTxnAdapter(Store store, Supplier<WriteTxn> begin, Durability durability) {
        this.store = store;
        this.begin = begin;
        this.durability = durability;
        this.outer = null;
    }

    /**
     * A transaction begun while {@code outer} is open on the same thread (ApacheDS's password
     * policy writes its state in a transaction of its own inside the modify that changes the
     * password): it works in the outer one, which alone commits or aborts. A second mvbt write
     * transaction would wait for the writer permit this thread holds.
     */
    WriteTxnAdapter(WriteTxnAdapter outer) {
        this.store = outer.store;
        this.begin = null;
        this.durability = outer.durability;
        this.outer = outer;
    }

    WriteTxn txn() {
        if (outer != null) {
            return outer.txn();
        }
        if (txn == null) {
            if (finished) {
                throw new IllegalStateException("the write transaction is finished");
            }
            if (HELD.get().contains(store)) {
                throw new IllegalStateException("this thread already holds the writer of the partition's store in a"
                        + " write transaction it has not ended; a second one would wait for itself"
                        + " (SnapshotOperationManager joins the transactions of one operation)");
            }
            txn = begin.get();
            HELD.get().add(store);
        }
        return txn;
    }

    @Override
    public Store store() {
        return store;
    }

    @Override
    public ReadView view() {
        return txn();
    }

    @Override
    public void retain() {
        // a write transaction's cursors live no longer than the operation that made them
    }

    @Override
    public void release() {
    }

    @Override
    public void commit() throws IOException {
        finished = true;
        if (outer != null || txn == null) {
            return;
        }
        try {
            txn.commit(durability);
        } catch (RuntimeException e) {
            throw new IOException("the commit of revision " + txn.revision() + " failed: " + e.getMessage(), e);
        } finally {
            releaseIfEnded();
        }
    }

    @Override
    public void abort() {
        close();
    }

    @Override
    public boolean isClosed() {
        return finished || (txn != null && txn.isFinished());
    }

    /** Whether its mvbt transaction was taken and is not yet committed nor aborted. */
    boolean isWorking() {
        return outer != null ? outer.isWorking() : !finished && txn != null && !txn.isFinished();
    }

    @Override
    public void close() {
        finished = true;
        if (txn != null && !txn.isFinished()) {
            try {
                txn.abort();
            } finally {
                releaseIfEnded();
            }
        }
    }

    private void releaseIfEnded() {
        if (txn.isFinished()) {
            HELD.get().remove(store);
        }
    }
}
