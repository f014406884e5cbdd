// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Range deletion cuts whole subtrees off in O(depth); their pages come back over later commits. */
class RangeDeletionTest {
    @TempDir
    Path dir;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    @Test
    void deletingAMillionOfTenMillionKeysWritesAFewPagesPerLevel() {
        long n = Long.getLong("mvbt.range.entries", 10_000_000L);
        try (Store store = Store.open(dir.resolve("range.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL))) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                try (BulkLoad load = tx.bulkLoad(t)) {
                    byte[] value = new byte[8];
                    for (long i = 0; i < n; i++) {
                        load.add(key(i), value);
                    }
                }
                tx.commit();
            }
            int depth;
            try (Snapshot before = store.beginRead()) {
                depth = before.treeStats(t).depth();
                long from = n / 3;
                long to = from + n / 10;
                try (WriteTxn tx = store.beginWrite()) {
                    assertEquals(n / 10, tx.deleteRange(t, key(from), key(to)));
                    tx.commit();
                }
                long written = store.stats().lastCommitPages();
                // Two boundary paths of the tree, the catalog, the garbage list and the free map: a
                // small multiple of the depth, however many keys went.
                assertTrue(written <= 6L * depth + 16, "the deleting commit wrote " + written + " pages, depth "
                        + depth);
                System.out.println("range deletion of " + n / 10 + " keys from " + n + " (depth " + depth + ") wrote "
                        + written + " pages");
                // The snapshot from before still reads every deleted key.
                assertEquals(n, before.count(t));
                assertArrayEquals(new byte[8], before.get(t, key(from + 12345)));
            }
            try (Snapshot after = store.beginRead()) {
                assertEquals(n - n / 10, after.count(t));
                assertNull(after.get(t, key(n / 3 + 12345)));
                assertArrayEquals(new byte[8], after.get(t, key(n / 3 - 1)));
                assertArrayEquals(new byte[8], after.get(t, key(n / 3 + n / 10)));
                assertEquals(n / 3, after.rank(t, key(n / 3 + 5), false));
                assertTrue(after.treeStats(t).depth() <= depth);
            }
            store.check().throwIfDamaged();
        }
    }

    @Test
    void detachedPagesAreFreedOverLaterCommitsAndReused() {
        try (Store store = Store.open(dir.resolve("reclaim.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL))) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                try (BulkLoad load = tx.bulkLoad(t)) {
                    for (long i = 0; i < 200_000; i++) {
                        load.add(key(i), new byte[50]);
                    }
                }
                tx.commit();
            }
            long inUseBefore = store.stats().pagesInUse();
            try (WriteTxn tx = store.beginWrite()) {
                tx.deleteRange(t, key(0), key(190_000));
                tx.commit();
            }
            // Until reclaimed, the cut-off pages count as in use; each commit frees a bounded number.
            assertTrue(store.stats().pagesInUse() > inUseBefore / 2);
            for (int i = 0; i < 400; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(t, key(1_000_000 + i), new byte[50]);
                    tx.commit();
                }
                if (i % 100 == 0) {
                    store.check().throwIfDamaged();
                }
            }
            store.sync();
            try (WriteTxn tx = store.beginWrite()) {
                tx.commit();
            }
            long inUseAfter = store.stats().pagesInUse();
            assertTrue(inUseAfter < inUseBefore / 5, "in use: " + inUseBefore + " before, " + inUseAfter + " after");
            store.check().throwIfDamaged();
        }
    }

    @Test
    void droppingABigTreeIsImmediateAndItsPagesReturn() {
        try (Store store = Store.inMemory()) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                try (BulkLoad load = tx.bulkLoad(t)) {
                    for (long i = 0; i < 300_000; i++) {
                        load.add(key(i), new byte[20]);
                    }
                }
                tx.commit();
            }
            try (WriteTxn tx = store.beginWrite()) {
                assertTrue(tx.dropTree(t));
                tx.commit();
            }
            // O(1) in the tree's size (about 1,700 pages): the drop and one bounded reclaiming step.
            assertTrue(store.stats().lastCommitPages() < 100, "drop wrote " + store.stats().lastCommitPages());
            for (int i = 0; i < 300; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.commit();
                }
            }
            assertTrue(store.stats().pagesInUse() < 100, "in use after reclaiming: " + store.stats().pagesInUse());
            store.check().throwIfDamaged();
        }
    }

    @Test
    void rangeBoundsAndAbort() {
        try (Store store = Store.inMemory()) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                for (long i = 0; i < 1000; i++) {
                    tx.put(t, key(i), new byte[1]);
                }
                tx.commit();
            }
            try (WriteTxn tx = store.beginWrite()) {
                assertThrows(IllegalArgumentException.class, () -> tx.deleteRange(t, key(5), key(4)));
                assertEquals(0, tx.deleteRange(t, key(5), key(5)));
                assertEquals(1, tx.deleteRange(t, key(5), key(6)));
                assertEquals(994, tx.count(t) - 5);
                try (Cursor c = tx.cursor(t)) {
                    assertTrue(c.seek(key(5)));
                    assertArrayEquals(key(6), c.keyBytes(), "the transaction's cursors see the deletion at once");
                }
                // Abort: nothing happened.
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(1000, s.count(t));
                assertTrue(s.contains(t, key(5)));
            }
            store.check().throwIfDamaged();
        }
    }

    @Test
    void bulkLoadRefusesDisorderAndLeavesNothingHalfLoaded() {
        try (Store store = Store.inMemory()) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                tx.put(t, key(100), new byte[1]);
                tx.commit();
            }
            try (WriteTxn tx = store.beginWrite()) {
                BulkLoad load = tx.bulkLoad(t);
                load.add(key(200), new byte[1]);
                assertThrows(IllegalArgumentException.class, () -> load.add(key(150), new byte[1]));
                assertThrows(IllegalStateException.class, tx::commit, "a failed load can only be aborted");
            }
            try (WriteTxn tx = store.beginWrite()) {
                assertThrows(IllegalArgumentException.class, () -> {
                    try (BulkLoad load = tx.bulkLoad(t)) {
                        load.add(key(50), new byte[1]);
                    }
                }, "keys must come after the tree's last key");
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(1, s.count(t));
                assertFalse(s.contains(t, key(200)));
            }
            store.check().throwIfDamaged();
        }
    }

    @Test
    void bulkLoadFillsPagesAsAsked() {
        for (double fill : new double[] {1.0, 0.7}) {
            try (Store store = Store.inMemory()) {
                Tree t;
                try (WriteTxn tx = store.beginWrite()) {
                    t = tx.createTree("t");
                    try (BulkLoad load = tx.bulkLoad(t, fill)) {
                        for (long i = 0; i < 100_000; i++) {
                            load.add(key(i), new byte[100]);
                        }
                    }
                    tx.commit();
                }
                try (Snapshot s = store.beginRead()) {
                    double measured = s.treeStats(t).fill();
                    assertTrue(measured > fill - 0.05 && measured <= fill + 0.001, "fill " + measured + " for " + fill);
                    assertEquals(100_000, s.count(t));
                    assertEquals(50_000, s.rank(t, key(50_000), false));
                }
                store.check().throwIfDamaged();
            }
        }
    }
}
