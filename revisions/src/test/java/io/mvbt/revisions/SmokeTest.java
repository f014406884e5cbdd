// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmokeTest {
    @TempDir
    Path dir;

    @Test
    void putCommitReopenGet() {
        Path file = dir.resolve("s.mvbt");
        for (Durability d : Durability.values()) {
            try (Store store = Store.open(file, StoreOptions.defaults().durability(d))) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = 0; i < 20_000; i++) {
                        tx.put(t, ("k" + i).getBytes(), ("v" + i + d).getBytes());
                    }
                    tx.commit();
                }
                for (int i = 0; i < 200; i++) {
                    try (WriteTxn tx = store.beginWrite()) {
                        tx.put(store.tree("t"), ("k" + i).getBytes(), ("w" + i).getBytes());
                        tx.delete(store.tree("t"), ("k" + (i + 1000)).getBytes());
                        tx.commit();
                    }
                }
                assertTrue(store.check().throwIfDamaged().ok());
            }
            try (Store store = Store.open(file)) {
                assertTrue(store.check().throwIfDamaged().ok());
                try (Snapshot s = store.beginRead()) {
                    Tree t = store.tree("t");
                    assertEquals(20_000 - 200, s.count(t));
                    assertArrayEquals("w5".getBytes(), s.get(t, "k5".getBytes()));
                    assertNull(s.get(t, "k1005".getBytes()));
                    assertArrayEquals(("v5000" + d).getBytes(), s.get(t, "k5000".getBytes()));
                }
                System.out.println(d + " " + store.stats());
            }
        }
    }
}
