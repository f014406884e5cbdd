// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.mvbt.bench.Disk;
import io.mvbt.bench.Permutation;
import io.mvbt.bench.Workload;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/** A file store in a temp directory, in NORMAL durability unless told, loaded with the db_bench shape. */
final class StoreFixture implements AutoCloseable {
    final Path dir;
    final Store store;
    final Tree tree;

    StoreFixture(long entries) {
        this(entries, StoreOptions.defaults().durability(Durability.NORMAL));
    }

    StoreFixture(long entries, StoreOptions options) {
        try {
            dir = Files.createTempDirectory("mvbt-jmh");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The engine's checkpoint defaults, as a user gets them.
        store = Store.open(dir.resolve("mvbt.db"), options);
        tree = store.tree("bench");
        Workload w = new Workload();
        Permutation order = new Permutation(entries, Workload.SEED);
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        for (long j = 0; j < entries; j += 1000) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.createTreeIfAbsent("bench");
                for (long k = j; k < Math.min(entries, j + 1000); k++) {
                    long i = order.apply(k);
                    Workload.presentKey(i, key);
                    w.value(i, 0, value);
                    tx.put(tree, key, value);
                }
                tx.commit(Durability.NORMAL);
            }
        }
        store.sync();
    }

    @Override
    public void close() {
        store.close();
        Disk.delete(dir);
    }
}
