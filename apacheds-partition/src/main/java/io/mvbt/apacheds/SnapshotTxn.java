// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.directory.server.core.api.partition.PartitionReadTxn;

/**
 * A read transaction: one mvbt snapshot, from the candidate sets of a search to the last entry
 * it fetches. ApacheDS closes the transaction before the LDAP handler reads the search's cursor,
 * so the snapshot is counted: the transaction holds one reference, each cursor made on it
 * another, and the snapshot closes with the last of them.
 *
 * <p>ApacheDS does not close every transaction and cursor it opens (a search from the root DSE
 * opens a transaction in every partition and closes none; so do interceptors at startup). Such a
 * snapshot closes when the transaction and every cursor on it are garbage: nothing can read it
 * then. Without that, each would keep its revision's pages from reuse and hold a reader slot.
 */
final class SnapshotTxn extends PartitionReadTxn implements PartitionView {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Store store;
    private final Snapshot snapshot;
    private final AtomicInteger references = new AtomicInteger(1);
    private final Cleaner.Cleanable unreachable;
    private volatile boolean closed;

    SnapshotTxn(Store store, Snapshot snapshot) {
        this.store = store;
        this.snapshot = snapshot;
        this.unreachable = CLEANER.register(this, snapshot::close);
    }

    @Override
    public ReadView view() {
        return snapshot;
    }

    @Override
    public Store store() {
        return store;
    }

    @Override
    public void retain() {
        while (true) {
            int n = references.get();
            if (n <= 0) {
                throw new IllegalStateException("the snapshot of revision " + snapshot.revision() + " is closed");
            }
            if (references.compareAndSet(n, n + 1)) {
                return;
            }
        }
    }

    @Override
    public void release() {
        if (references.decrementAndGet() == 0) {
            unreachable.clean();
        }
    }

    @Override
    public void commit() {
        close();
    }

    @Override
    public void abort() {
        close();
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            release();
        }
    }
}
