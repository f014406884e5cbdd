// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.StoreFailedException;
import io.mvbt.btree.PageHeader;
import io.mvbt.btree.TreeRoot;

/**
 * A store that syncs every commit builds the transaction's pages in private memory and writes
 * them at commit ({@link PrivatePages}): what it commits reads back the same from the file, in
 * this process and after reopening, whether a transaction fits the private memory or not, writes
 * a value as a run of one page, or aborts.
 */
class PrivatePagesTest {
    /** Pages written through the mapping, as without a shadow directory (what this test is about). */
    private static final StoreOptions MAPPED = StoreOptions.defaults().shadowDirectory(null);

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes();
    }

    private static byte[] value(Random random, int length) {
        byte[] v = new byte[length];
        random.nextBytes(v);
        return v;
    }

    /** The values read back after reopening, and the store checks clean. */
    private static void assertReopens(Path path, byte[][] values) {
        try (Store store = Store.open(path, MAPPED)) {
            assertAll(store, values);
            store.check().throwIfDamaged();
        }
    }

    @Test
    void aSyncStoreBuildsItsPagesOffTheMappingAndANormalOneInIt() {
        for (Durability durability : Durability.values()) {
            try (Store store = Store.open(dir.resolve(durability + ".mvbt"), MAPPED.durability(durability));
                    WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTree("t");
                tx.put(t, key(1), key(1));
                TreeRoot root = tx.rootOf(t);
                long address = tx.reader().page(root.page, root.revision, PageHeader.TYPE_LEAF);
                if (durability == Durability.SYNC) {
                    assertNotEquals(store.pages().address(root.page), address);
                } else {
                    assertEquals(store.pages().address(root.page), address);
                }
                tx.commit();
            }
        }
    }

    @Test
    void valuesWrittenAsRunsOfOnePageSurviveBesideThePrivatePages() {
        Path path = dir.resolve("runs.mvbt");
        Random random = new Random(1);
        byte[][] values = new byte[200][];
        try (Store store = Store.open(path, MAPPED)) {
            for (int i = 0; i < values.length; i++) {
                // 1,500 to 3,000 bytes: past the inline limit, within one overflow page.
                values[i] = value(random, 1_500 + random.nextInt(1_500));
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    tx.put(t, key(i), values[i]);
                    tx.put(t, key(-i - 1), key(i));
                    tx.commit();
                }
            }
            assertAll(store, values);
        }
        assertReopens(path, values);
    }

    @Test
    void aTransactionLargerThanThePrivateMemoryCommitsWhole() {
        Path path = dir.resolve("large.mvbt");
        Random random = new Random(2);
        byte[][] values = new byte[60_000][];
        try (Store store = Store.open(path, MAPPED)) {
            for (int round = 0; round < 2; round++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = 0; i < values.length; i++) {
                        values[i] = value(random, 60 + random.nextInt(80));
                        tx.put(t, key(i), values[i]);
                    }
                    tx.commit();
                }
                assertAll(store, values);
            }
            assertTrue(store.stats().lastCommitPages() > 2 * PrivatePages.BYTES / 4096, "pages past the private memory");
        }
        assertReopens(path, values);
    }

    @Test
    void anAbortedTransactionLeavesNothingBehind() {
        Path path = dir.resolve("abort.mvbt");
        Random random = new Random(3);
        byte[][] values = new byte[500][];
        try (Store store = Store.open(path, MAPPED)) {
            for (int round = 0; round < 20; round++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = 0; i < 50; i++) {
                        tx.put(t, key(100_000 + i), value(random, 100));
                    }
                    tx.abort();
                }
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = round * 25; i < round * 25 + 25; i++) {
                        values[i] = value(random, 100);
                        tx.put(t, key(i), values[i]);
                    }
                    tx.commit();
                }
            }
        }
        try (Store store = Store.open(path, MAPPED); Snapshot s = store.beginRead()) {
            assertAll(store, values);
            for (int i = 0; i < 50; i++) {
                assertNull(s.get(store.tree("t"), key(100_000 + i)));
            }
            store.check().throwIfDamaged();
        }
    }

    private static void assertAll(Store store, byte[][] values) {
        try (Snapshot s = store.beginRead()) {
            Tree t = store.tree("t");
            for (int i = 0; i < values.length; i++) {
                assertArrayEquals(values[i], s.get(t, key(i)), "key " + i);
            }
        }
    }

    @Test
    void anInterruptedCommitFailsTheStoreAndLosesNothingCommitted() {
        Path path = dir.resolve("interrupted.mvbt");
        Tree t;
        try (Store store = Store.open(path, MAPPED)) {
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                tx.put(t, key(1), key(1));
                tx.commit();
            }
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(t, key(2), key(2));
                // An interrupt closes the file's channel for good under the commit's positional writes.
                Thread.currentThread().interrupt();
                try {
                    assertThrows(StoreFailedException.class, tx::commit);
                } finally {
                    Thread.interrupted();
                }
            }
            assertThrows(StoreFailedException.class, store::beginWrite);
            try (Snapshot s = store.beginRead()) {
                assertArrayEquals(key(1), s.get(t, key(1)));
                assertNull(s.get(t, key(2)));
            }
        }
        try (Store store = Store.open(path, MAPPED); Snapshot s = store.beginRead()) {
            Tree reopened = store.tree("t");
            assertArrayEquals(key(1), s.get(reopened, key(1)));
            assertNull(s.get(reopened, key(2)));
        }
    }
}
