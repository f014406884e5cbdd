// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** A tree's version moves exactly when its entries change, whatever else is committed. */
class TreeVersionTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theVersionMovesOnlyWithTheTreesOwnChanges() {
        try (Store store = Store.inMemory()) {
            Tree a;
            Tree other;
            try (WriteTxn tx = store.beginWrite()) {
                a = tx.createTreeIfAbsent("a");
                other = tx.createTreeIfAbsent("other");
                assertEquals(0, tx.treeVersion(a));
                tx.put(a, b("k1"), b("v1"));
                assertEquals(tx.revision(), tx.treeVersion(a));
                tx.commit();
            }
            long first;
            try (Snapshot s = store.beginRead()) {
                first = s.treeVersion(a);
                assertEquals(s.revision(), first);
            }
            // Commits to another tree leave it alone.
            for (int i = 0; i < 50; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(other, b("o" + i), b("x".repeat(i)));
                    assertEquals(first, tx.treeVersion(a));
                    tx.commit();
                }
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(first, s.treeVersion(a));
            }
            // Any change of its own moves it: a put, an overwrite with the same length, a delete.
            long last = first;
            for (String step : new String[] {"put", "overwrite", "delete"}) {
                try (WriteTxn tx = store.beginWrite()) {
                    switch (step) {
                        case "put" -> tx.put(a, b("k2"), b("v2"));
                        case "overwrite" -> tx.put(a, b("k2"), b("w2"));
                        default -> tx.delete(a, b("k1"));
                    }
                    tx.commit();
                }
                try (Snapshot s = store.beginRead()) {
                    assertNotEquals(last, s.treeVersion(a), step);
                    last = s.treeVersion(a);
                }
            }
            try (WriteTxn tx = store.beginWrite()) {
                tx.delete(a, b("k2"));
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(0, s.treeVersion(a));
            }
        }
    }
}
