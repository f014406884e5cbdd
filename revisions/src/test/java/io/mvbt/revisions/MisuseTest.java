// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.ClosedException;
import io.mvbt.KeyTooLargeException;
import io.mvbt.StoreLockedException;
import io.mvbt.TreeExistsException;
import io.mvbt.TreeNotFoundException;
import io.mvbt.WriteTimeoutException;

/** Misuse gets a clear exception and loses no committed data. */
class MisuseTest {
    @TempDir
    Path dir;

    private static final byte[] K = "k".getBytes();
    private static final byte[] V = "v".getBytes();

    private static Store storeWithData(Store store) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree("t");
            tx.put(t, K, V);
            tx.commit();
        }
        return store;
    }

    @Test
    void closedStoreRefusesEverything() {
        Store store = storeWithData(Store.inMemory());
        Snapshot open = store.beginRead();
        store.close();
        assertThrows(ClosedException.class, store::beginRead);
        assertThrows(ClosedException.class, store::beginWrite);
        assertThrows(ClosedException.class, () -> open.get(store.tree("t"), K));
        store.close();
    }

    @Test
    void closedSnapshotAndCursorRefuse() {
        try (Store store = storeWithData(Store.inMemory())) {
            Tree t = store.tree("t");
            Snapshot s = store.beginRead();
            Cursor c = s.cursor(t);
            assertTrue(c.first());
            c.close();
            assertThrows(ClosedException.class, c::next);
            assertThrows(ClosedException.class, c::key);
            s.close();
            assertThrows(ClosedException.class, () -> s.get(t, K));
            assertThrows(ClosedException.class, () -> s.cursor(t));
            assertThrows(ClosedException.class, () -> s.count(t));
            s.close();
            try (Snapshot again = store.beginRead()) {
                assertArrayEquals(V, again.get(t, K));
            }
        }
    }

    @Test
    void finishedTransactionRefuses() {
        try (Store store = storeWithData(Store.inMemory())) {
            Tree t = store.tree("t");
            WriteTxn committed = store.beginWrite();
            Cursor c = committed.cursor(t);
            committed.commit();
            assertThrows(ClosedException.class, () -> committed.put(t, K, V));
            assertThrows(ClosedException.class, committed::commit);
            assertThrows(ClosedException.class, c::first);
            WriteTxn aborted = store.beginWrite();
            aborted.put(t, "x".getBytes(), V);
            aborted.abort();
            assertThrows(ClosedException.class, () -> aborted.get(t, K));
            assertThrows(ClosedException.class, aborted::commit);
            try (Snapshot s = store.beginRead()) {
                assertNull(s.get(t, "x".getBytes()), "an aborted write is gone");
                assertArrayEquals(V, s.get(t, K));
            }
        }
    }

    @Test
    void closingAnUncommittedTransactionAborts() {
        try (Store store = storeWithData(Store.inMemory())) {
            Tree t = store.tree("t");
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(t, K, "changed".getBytes());
            }
            try (Snapshot s = store.beginRead()) {
                assertArrayEquals(V, s.get(t, K));
            }
        }
    }

    @Test
    void oversizeKeysAreRefusedAndTheTransactionGoesOn() {
        try (Store store = storeWithData(Store.inMemory())) {
            Tree t = store.tree("t");
            byte[] tooLong = new byte[store.maxKeySize() + 1];
            byte[] longest = new byte[store.maxKeySize()];
            try (WriteTxn tx = store.beginWrite()) {
                KeyTooLargeException e = assertThrows(KeyTooLargeException.class, () -> tx.put(t, tooLong, V));
                assertTrue(e.getMessage().contains(Integer.toString(store.maxKeySize())), e.getMessage());
                assertThrows(KeyTooLargeException.class, () -> tx.get(t, tooLong));
                tx.put(t, longest, V);
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertArrayEquals(V, s.get(t, longest));
                assertThrows(KeyTooLargeException.class, () -> s.contains(t, tooLong));
            }
            assertEquals(1024, Store.inMemory().maxKeySize(), "a quarter of a 4 KiB page");
        }
    }

    @Test
    void missingAndExistingTrees() {
        try (Store store = storeWithData(Store.inMemory())) {
            Tree missing = store.tree("missing");
            try (Snapshot s = store.beginRead()) {
                assertFalse(s.hasTree(missing));
                assertThrows(TreeNotFoundException.class, () -> s.get(missing, K));
            }
            try (WriteTxn tx = store.beginWrite()) {
                assertThrows(TreeExistsException.class, () -> tx.createTree("t"));
                assertThrows(TreeNotFoundException.class, () -> tx.put(missing, K, V));
                assertThrows(IllegalArgumentException.class, () -> tx.createTree(""));
            }
        }
    }

    @Test
    void aMissingTreeSaysHowToCreateIt() {
        try (Store store = Store.inMemory()) {
            TypedTree<String, Long> scores = TypedTree.of(store.tree("scores"), Codecs.STRING, Codecs.LONG);
            TreeNotFoundException write = assertThrows(TreeNotFoundException.class,
                    () -> store.update(tx -> scores.put(tx, "alice", 1L)));
            assertTrue(write.getMessage().contains("no tree 'scores'"), write.getMessage());
            assertTrue(write.getMessage().contains("createTreeIfAbsent"), write.getMessage());
            TreeNotFoundException read = assertThrows(TreeNotFoundException.class,
                    () -> store.read(s -> scores.get(s, "alice")));
            assertTrue(read.getMessage().contains("createTreeIfAbsent"), read.getMessage());
        }
    }

    @Test
    void aSecondWriterThreadWaitsThenTimesOut() throws Exception {
        try (Store store = storeWithData(Store.inMemory(StoreOptions.defaults().writeTimeout(Duration.ofMillis(200))))) {
            WriteTxn first = store.beginWrite();
            long start = System.nanoTime();
            CompletableFuture<Throwable> second = CompletableFuture.supplyAsync(() -> {
                try (WriteTxn tx = store.beginWrite()) {
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            assertTrue(second.get(10, TimeUnit.SECONDS) instanceof WriteTimeoutException);
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(150), "it waited");
            // Once the first ends, a waiting writer goes ahead.
            CompletableFuture<Long> third = CompletableFuture.supplyAsync(() -> {
                try (WriteTxn tx = store.beginWrite(Duration.ofSeconds(10))) {
                    tx.put(store.tree("t"), "third".getBytes(), V);
                    tx.commit();
                    return tx.revision();
                }
            });
            Thread.sleep(50);
            first.commit();
            assertEquals(first.revision() + 1, third.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aSecondWriterInThisProcessIsRefused() {
        Path path = dir.resolve("locked.mvbt");
        try (Store store = storeWithData(Store.open(path))) {
            StoreLockedException e = assertThrows(StoreLockedException.class, () -> Store.open(path));
            assertTrue(e.getMessage().contains("already open"), e.getMessage());
            try (Snapshot s = store.beginRead()) {
                assertArrayEquals(V, s.get(store.tree("t"), K));
            }
        }
        try (Store again = Store.open(path)) {
            try (Snapshot s = again.beginRead()) {
                assertArrayEquals(V, s.get(again.tree("t"), K));
            }
        }
    }

    @Test
    void aSecondWriterProcessIsRefused() throws Exception {
        Path path = dir.resolve("shared.mvbt");
        try (Store store = storeWithData(Store.open(path))) {
            String out = ChildJvm.run(OpenStoreChild.class, path.toString());
            assertTrue(out.startsWith("StoreLockedException"), out);
            assertTrue(out.contains("another process"), out);
        }
        String out = ChildJvm.run(OpenStoreChild.class, path.toString());
        assertTrue(out.startsWith("opened at revision"), out);
    }

    /** A JVM started with no option at all opens a store, and prints nothing else. */
    @Test
    void aJvmWithoutFlagsOpensAStore() throws Exception {
        String out = ChildJvm.runPlain(OpenStoreChild.class, dir.resolve("noflag.mvbt").toString());
        assertTrue(out.startsWith("opened at revision"), out);
        assertEquals(1, out.lines().count(), out);
    }
}
