// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Snapshot;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.directory.server.core.api.partition.PartitionReadTxn;

/**
 * A read transaction: one mvbt snapshot, from the candidate sets of a search to the last entry
 * it fetches. ApacheDS closes the transaction before the LDAP handler reads the search's cursor,
 * so the snapshot is counted: the transaction holds one reference, each cursor made on it
 * another, and the snapshot closes with the last of them.
 */
final class SnapshotTxn extends PartitionReadTxn implements PartitionView {
    private final Snapshot snapshot;
    private final AtomicInteger references = new AtomicInteger(1);
    private volatile boolean closed;

    SnapshotTxn(Snapshot snapshot) {
        this.snapshot = snapshot;
    }

    @Override
    public ReadView view() {
        return snapshot;
    }

    @Override
    public void retain() {
        if (references.getAndIncrement() <= 0) {
            references.decrementAndGet();
            throw new IllegalStateException("the snapshot of revision " + snapshot.revision() + " is closed");
        }
    }

    @Override
    public void release() {
        if (references.decrementAndGet() == 0) {
            snapshot.close();
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
