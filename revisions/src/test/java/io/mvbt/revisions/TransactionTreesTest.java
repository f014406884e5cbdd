// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** A write transaction sees the trees it creates and drops, before it commits. */
class TransactionTreesTest {
    @Test
    void treeNamesListWhatTheTransactionCreatedAndNotWhatItDropped() {
        try (Store store = Store.inMemory()) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.createTree("m");
                tx.createTree("z");
                tx.commit();
            }
            try (WriteTxn tx = store.beginWrite()) {
                assertEquals(List.of("m", "z"), tx.treeNames());
                tx.createTree("t0");
                tx.createTree("a");
                assertTrue(tx.dropTree(store.tree("z")));
                assertEquals(List.of("a", "m", "t0"), tx.treeNames());
                assertTrue(tx.hasTree(store.tree("t0")));
                assertFalse(tx.hasTree(store.tree("z")));
                // Readers see none of it until the commit.
                try (Snapshot s = store.beginRead()) {
                    assertEquals(List.of("m", "z"), s.treeNames());
                }
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(List.of("a", "m", "t0"), s.treeNames());
            }
        }
    }

    @Test
    void aTreeWithAnOpenBulkLoadExistsAndCannotBeDropped() {
        try (Store store = Store.inMemory()) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTree("t");
                BulkLoad load = tx.bulkLoad(t);
                load.add(new byte[] {1}, new byte[] {1});
                assertTrue(tx.hasTree(t));
                assertEquals(List.of("t"), tx.treeNames());
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> tx.dropTree(t));
                assertTrue(e.getMessage().contains("bulk load into 't' is open"), e.getMessage());
                // The load goes on as if nothing happened.
                load.add(new byte[] {2}, new byte[] {2});
                load.close();
                assertEquals(2, tx.count(t));
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(2, s.count(store.tree("t")));
            }
            assertTrue(store.check().ok(), store.check().toString());
        }
    }
}
