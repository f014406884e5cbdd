// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.NotAStoreException;
import io.mvbt.StoreFailedException;
import io.mvbt.pagestore.local.LockFile;

/**
 * Java closes a file's channel for good when a thread doing I/O on it is interrupted. Every path
 * that meets the closed channel fails the store (no later commit could become durable) with a
 * message that names the interrupt; a close on an interrupted thread still finishes.
 */
class InterruptTest {
    @TempDir
    Path dir;

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    private static Tree committed(Store store, int entries) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree("t");
            for (int i = 0; i < entries; i++) {
                tx.put(t, key(i), key(i));
            }
            tx.commit();
            return t;
        }
    }

    @Test
    void anInterruptWhileTheFileGrowsFailsTheStore() {
        Path path = dir.resolve("grow.mvbt");
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL);
        try (Store store = Store.open(path, options)) {
            Tree t = committed(store, 10);
            long before = store.revision();
            WriteTxn tx = store.beginWrite();
            Thread.currentThread().interrupt();
            // Values far past the file's size: the file grows under the interrupted thread.
            StoreFailedException e = assertThrows(StoreFailedException.class, () -> {
                for (int i = 0; i < 100; i++) {
                    tx.put(t, key(1_000 + i), new byte[100_000]);
                }
            });
            Thread.interrupted();
            assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
            assertFalse(e.getMessage().contains(": null"), e.getMessage());
            tx.abort();
            // No later commit is taken: none could ever become durable.
            assertThrows(StoreFailedException.class, store::beginWrite);
            assertEquals(before, store.revision());
            try (Snapshot s = store.beginRead()) {
                assertEquals(10, s.count(t));
            }
        }
        try (Store store = Store.open(path, options); Snapshot s = store.beginRead()) {
            assertEquals(10, s.count(store.tree("t")));
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void anInterruptedSyncIsReportedAsAnInterruptNotADiskFailure() {
        Path path = dir.resolve("sync.mvbt");
        try (Store store = Store.open(path, StoreOptions.defaults().durability(Durability.NORMAL))) {
            Tree t = committed(store, 10);
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(t, key(11), key(11));
                tx.commit();
            }
            Thread.currentThread().interrupt();
            StoreFailedException e = assertThrows(StoreFailedException.class, store::sync);
            Thread.interrupted();
            assertFalse(e.getMessage().contains("fsync failed"), e.getMessage());
            assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
            assertThrows(StoreFailedException.class, store::beginWrite);
        }
        // Recovery in the same boot opens at the newest commit.
        try (Store store = Store.open(path); Snapshot s = store.beginRead()) {
            assertEquals(11, s.count(store.tree("t")));
        }
    }

    @Test
    void aCloseOnAnInterruptedThreadFinishesAndKeepsTheInterrupt() {
        Path path = dir.resolve("close.mvbt");
        Store store = Store.open(path, StoreOptions.defaults().durability(Durability.NORMAL));
        committed(store, 25);
        Thread.currentThread().interrupt();
        store.close();
        assertTrue(Thread.interrupted(), "the interrupt is restored");
        // The store is closed and its locks released: this JVM opens it again, at a durable revision.
        try (Store again = Store.open(path); Snapshot s = again.beginRead()) {
            assertEquals(25, s.count(again.tree("t")));
            assertEquals(again.revision(), again.stats().durableRevision());
        }
    }

    @Test
    void aFailedOpenOfAFileThatIsNotAStoreLeavesNoLockFile() throws Exception {
        Path path = dir.resolve("notes.txt");
        Files.writeString(path, "not a store, and never to be one");
        assertThrows(NotAStoreException.class, () -> Store.open(path));
        assertThrows(NotAStoreException.class, () -> Store.openReadOnly(path));
        assertFalse(Files.exists(LockFile.lockPathOf(path)), "lock file left behind");
        assertEquals("not a store, and never to be one", Files.readString(path));
    }
}
