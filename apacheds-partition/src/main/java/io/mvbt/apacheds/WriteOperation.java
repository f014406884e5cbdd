// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.util.ArrayList;
import java.util.List;

/**
 * The write transactions mvbt partitions began during the LDAP write operation running on this
 * thread ({@link SnapshotOperationManager} opens and ends the scope). When the operation ends,
 * however it ends, any of them ApacheDS neither committed nor aborted is aborted: ApacheDS aborts
 * only on its own exceptions, and a transaction left open would keep the store's one writer. A
 * transaction begun while another of the same store is at work in the operation joins it.
 */
final class WriteOperation {
    private static final ThreadLocal<List<WriteTxnAdapter>> BEGUN = new ThreadLocal<>();

    private WriteOperation() {
    }

    /** Opens the scope of an operation; the returned scope aborts what is left open and restores the outer one. */
    static BoundTxn.Scope enter() {
        List<WriteTxnAdapter> outer = BEGUN.get();
        List<WriteTxnAdapter> begun = new ArrayList<>();
        BEGUN.set(begun);
        return () -> {
            BEGUN.set(outer);
            for (WriteTxnAdapter txn : begun) {
                txn.close();
            }
        };
    }

    /** A transaction of this operation already at work on {@code store}, or null. */
    static WriteTxnAdapter working(io.mvbt.revisions.Store store) {
        List<WriteTxnAdapter> begun = BEGUN.get();
        if (begun != null) {
            for (WriteTxnAdapter txn : begun) {
                if (txn.store() == store && txn.isWorking()) {
                    return txn;
                }
            }
        }
        return null;
    }

    /** Records a transaction begun in this operation, if one is running. */
    static WriteTxnAdapter begun(WriteTxnAdapter txn) {
        List<WriteTxnAdapter> begun = BEGUN.get();
        if (begun != null) {
            begun.add(txn);
        }
        return txn;
    }
}
