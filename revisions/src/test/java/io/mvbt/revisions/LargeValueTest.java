// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Large values live in overflow runs that cost their size and are never copied by unrelated commits. */
class LargeValueTest {
    @TempDir
    Path dir;

    @Test
    void aHundredKilobyteValueCostsAboutAHundredKilobytes() {
        try (Store store = Store.open(dir.resolve("large.mvbt"))) {
            byte[] big = new byte[100 * 1024];
            new Random(1).nextBytes(big);
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                tx.put(t, "big".getBytes(), big);
                tx.commit();
            }
            long pagesBefore;
            try (Snapshot s = store.beginRead()) {
                // 102,400 bytes plus a 48-byte run header: 26 pages of 4 KiB.
                assertEquals(26, s.treeStats(t).overflowPages());
                pagesBefore = store.stats().pagesInFile();
            }
            // Unrelated commits to the same leaf copy the leaf, never the value.
            for (int i = 0; i < 200; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(t, ("small" + i).getBytes(), new byte[10]);
                    tx.commit();
                }
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(26, s.treeStats(t).overflowPages());
                assertArrayEquals(big, s.get(t, "big".getBytes()));
                UnsafeBuffer view = new UnsafeBuffer(0, 0);
                assertTrue(s.get(t, new UnsafeBuffer("big".getBytes()), view));
                assertEquals(big.length, view.capacity());
                assertEquals(big[99_999], view.getByte(99_999), "zero-copy view of a one-run value");
            }
            assertTrue(store.stats().pagesInFile() <= pagesBefore + 10,
                    "200 small commits grew the file from " + pagesBefore + " to " + store.stats().pagesInFile());
            store.check().throwIfDamaged();
        }
    }

    @Test
    void valuesLargerThanOneRunAreChained() {
        try (Store store = Store.inMemory()) {
            // Runs are at most 64 MiB, so 100 MiB takes two.
            byte[] huge = new byte[100 << 20];
            new Random(2).nextBytes(huge);
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                tx.put(t, "huge".getBytes(), huge);
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertArrayEquals(huge, s.get(t, "huge".getBytes()));
                try (Cursor c = s.cursor(t)) {
                    assertTrue(c.first());
                    assertEquals(huge.length, c.value().capacity());
                    assertEquals(huge[huge.length - 1], c.value().getByte(huge.length - 1));
                }
            }
            try (WriteTxn tx = store.beginWrite()) {
                tx.delete(t, "huge".getBytes());
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(0, s.treeStats(t).overflowPages());
            }
            store.check().throwIfDamaged();
        }
    }
}
