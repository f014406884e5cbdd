// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/** Fills a store with the db_bench shape for the benchmarks that read it afterwards. */
public final class StoreLoader {
    private StoreLoader() {
    }

    /** Puts keys 0 to {@code entries - 1} with their generation-0 values into {@code tree}, 10,000 a commit. */
    public static void load(Store store, String tree, long entries) {
        Workload w = new Workload();
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        for (long start = 0; start < entries; start += 10_000) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTreeIfAbsent(tree);
                for (long i = start; i < Math.min(entries, start + 10_000); i++) {
                    Workload.presentKey(i, key);
                    w.value(i, 0, value);
                    tx.put(t, key, value);
                }
                tx.commit();
            }
        }
    }
}
