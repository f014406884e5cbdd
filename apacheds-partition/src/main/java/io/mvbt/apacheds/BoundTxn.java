// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import org.apache.directory.server.core.api.partition.PartitionTxn;

/**
 * The transaction of the partition operation running on this thread. ApacheDS asks a table for a
 * cursor without a transaction ({@code Table.cursor()}: the master table's, for searches that
 * scan every entry); such a cursor reads the transaction bound here when it is made, so it reads
 * the same snapshot as the rest of the search wherever it is iterated later.
 */
final class BoundTxn {
    private static final ThreadLocal<PartitionView> CURRENT = new ThreadLocal<>();

    private BoundTxn() {
    }

    /** Binds {@code txn} (if it is one of ours) until the returned scope closes; scopes nest. */
    static Scope bind(PartitionTxn txn) {
        PartitionView outer = CURRENT.get();
        if (txn instanceof PartitionView) {
            CURRENT.set((PartitionView) txn);
        }
        return () -> CURRENT.set(outer);
    }

    /** The view of {@code txn}, or of the bound transaction when {@code txn} is not one of ours. */
    static PartitionView of(PartitionTxn txn) {
        if (txn instanceof PartitionView) {
            return (PartitionView) txn;
        }
        PartitionView bound = CURRENT.get();
        if (bound == null) {
            throw new IllegalStateException("an mvbt partition was read outside a transaction of its own");
        }
        return bound;
    }

    /** The write transaction of {@code store} bound on this thread and still at work, or null. */
    static WriteTxnAdapter working(io.mvbt.revisions.Store store) {
        PartitionView bound = CURRENT.get();
        return bound instanceof WriteTxnAdapter && bound.store() == store && ((WriteTxnAdapter) bound).isWorking()
                ? (WriteTxnAdapter) bound : null;
    }

    interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
