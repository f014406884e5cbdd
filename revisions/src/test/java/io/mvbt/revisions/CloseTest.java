// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.ClosedException;

/**
 * {@link Store#close()} always closes: a write transaction left open (in this thread or another)
 * is aborted, the lock goes at once, and whoever still holds the transaction gets
 * {@link ClosedException}.
 */
class CloseTest {
    @TempDir
    Path dir;

    /** Long enough that a close waiting for the writer, as it once did, fails the test by its bound. */
    private static final StoreOptions PATIENT = StoreOptions.defaults().writeTimeout(Duration.ofSeconds(60));
    private static final byte[] K = bytes("k");
    private static final byte[] V = bytes("v");
    private static final byte[] UNCOMMITTED = bytes("uncommitted");

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Commits K = V into tree "t"; returns the revision. */
    private static long commitKey(Store store) {
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(tx.createTreeIfAbsent("t"), K, V);
            tx.commit();
            return tx.revision();
        }
    }

    @Test
    void closeAbortsAWriteTransactionOpenInAnotherThread() throws Exception {
        Path path = dir.resolve("other-thread.mvbt");
        Store store = Store.open(path, PATIENT);
        long committed = commitKey(store);
        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        CompletableFuture<String> owner = CompletableFuture.supplyAsync(() -> {
            WriteTxn tx = store.beginWrite();
            Tree t = store.tree("t");
            tx.put(t, UNCOMMITTED, V);
            written.countDown();
            awaitQuietly(closed);
            StringBuilder seen = new StringBuilder();
            seen.append(outcome(() -> tx.put(t, K, bytes("changed")))).append(' ');
            seen.append(outcome(() -> tx.get(t, K))).append(' ');
            seen.append(outcome(tx::commit)).append(' ');
            seen.append(tx.isFinished()).append(' ');
            seen.append(outcome(tx::close));
            return seen.toString();
        });
        assertTrue(written.await(30, TimeUnit.SECONDS));

        long start = System.nanoTime();
        store.close();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0, "the close waited for the writer: " + took);

        // Right after close returned, with the aborted transaction's owner not yet told: the lock is gone.
        String child = ChildJvm.run(OpenStoreChild.class, path.toString());
        assertEquals("opened at revision " + committed, child.strip());

        closed.countDown();
        assertEquals("ClosedException ClosedException ClosedException true ok", owner.get(30, TimeUnit.SECONDS));
        assertNothingOfTheAbortedTransaction(path, committed);
    }

    @Test
    void closeAbortsTheTransactionOpenInTheClosingThread() {
        Path path = dir.resolve("same-thread.mvbt");
        Store store = Store.open(path, PATIENT);
        long committed = commitKey(store);
        Tree t = store.tree("t");
        WriteTxn tx = store.beginWrite();
        tx.put(t, UNCOMMITTED, V);
        Cursor cursor = tx.cursor(t);
        assertTrue(cursor.first());
        Tree loaded = tx.createTree("loaded");
        BulkLoad load = tx.bulkLoad(loaded);
        load.add(bytes("a"), V);

        assertDoesNotThrow(store::close);

        ClosedException e = assertThrows(ClosedException.class, () -> tx.put(t, K, V));
        assertTrue(e.getMessage().contains("was closed"), e.getMessage());
        assertThrows(ClosedException.class, tx::commit);
        assertThrows(ClosedException.class, cursor::next);
        assertThrows(ClosedException.class, () -> load.add(bytes("b"), V));
        assertTrue(tx.isFinished());
        assertDoesNotThrow(load::close);
        assertDoesNotThrow(cursor::close);
        assertDoesNotThrow(tx::close);
        assertDoesNotThrow(store::close);
        assertNothingOfTheAbortedTransaction(path, committed);
        try (Store again = Store.open(path)) {
            try (Snapshot s = again.beginRead()) {
                assertEquals(java.util.List.of("t"), s.treeNames(), "the tree created in the aborted transaction");
            }
        }
    }

    /** Reopened: the committed key is there, nothing of the aborted transaction, and the store checks. */
    private static void assertNothingOfTheAbortedTransaction(Path path, long committed) {
        try (Store again = Store.open(path)) {
            assertEquals(committed, again.revision());
            try (Snapshot s = again.beginRead()) {
                assertArrayEquals(V, s.get(again.tree("t"), K));
                assertNull(s.get(again.tree("t"), UNCOMMITTED));
            }
            assertTrue(again.check().ok(), () -> again.check().problems().toString());
        }
    }

    /** What {@code action} ended with: "ok", or the simple name of what it threw. */
    static String outcome(Runnable action) {
        try {
            action.run();
            return "ok";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    /** Waits for {@code latch}, keeping an interrupt for the caller to see. */
    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
