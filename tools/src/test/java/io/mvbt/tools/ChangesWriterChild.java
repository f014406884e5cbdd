// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * A writer process for {@link ChangesCommandTest}: {@code PATH} opens the store for writing, commits
 * key 0, keeps that revision under the name {@code start}, prints {@code ready}, then commits key
 * {@code k%06d} = {@code v<k>} one per commit until killed.
 */
public final class ChangesWriterChild {
    private ChangesWriterChild() {
    }

    public static void main(String[] args) {
        try (Store store = Store.open(Path.of(args[0]), StoreOptions.defaults().durability(Durability.NORMAL))) {
            commit(store, 0);
            store.retain("start");
            System.out.println("ready");
            System.out.flush();
            for (int k = 1; ; k++) {
                commit(store, k);
            }
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            System.exit(1);
        }
    }

    static void commit(Store store, int k) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            tx.put(t, String.format("k%06d", k).getBytes(StandardCharsets.UTF_8), ("v" + k).getBytes(StandardCharsets.UTF_8));
            tx.commit();
        }
    }
}
