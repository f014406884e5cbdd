// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.ClosedException;
import io.mvbt.WriteTimeoutException;

/**
 * The edges of {@link Store#close()}: a writer waiting for its turn when the close begins, and a
 * close called by the thread that is inside one of the store's own operations.
 */
class CloseEdgeTest {
    /**
     * A thread per task: the tasks block (an operation held open, a close waiting for it), and the
     * common pool may run them on one worker (JDK 25 does on two cores), so a task would wait
     * behind the one it waits for.
     */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private <T> CompletableFuture<T> supply(java.util.function.Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, threads);
    }

    private CompletableFuture<Void> run(Runnable task) {
        return CompletableFuture.runAsync(task, threads);
    }

    @TempDir
    Path dir;

    /** Long enough that a waiter served only by its timeout fails the test by its bounds. */
    private static final StoreOptions PATIENT = StoreOptions.defaults().writeTimeout(Duration.ofSeconds(60));
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final byte[] K = bytes("k");
    private static final byte[] V = bytes("v");

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A key whose length, asked inside a transaction's operation, first runs {@code inside}: user
     * code that the store calls while the operation runs.
     */
    private static UnsafeBuffer keyRunning(byte[] key, Runnable inside) {
        return new UnsafeBuffer(key) {
            private boolean ran;

            @Override
            public int capacity() {
                if (!ran) {
                    ran = true;
                    inside.run();
                }
                return super.capacity();
            }
        };
    }

    /**
     * A beginWrite waiting for the writer fails with ClosedException as soon as a close begins,
     * without taking the writer (here with writers taking turns on the file, whose turn a late
     * waiter would otherwise ask a closed file for): the close is still waiting for the operation
     * the transaction's owner runs.
     */
    @Test
    void aBeginWriteWaitingWhenCloseBeginsFailsAtOnce() throws Exception {
        Path path = dir.resolve("waiting.mvbt");
        Store store = Store.open(path, PATIENT.sharedWriters(true));
        long committed = store.write(tx -> {
            tx.put(tx.createTreeIfAbsent("t"), K, V);
            tx.commit();
            return tx.revision();
        });
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        CompletableFuture<String> owner = supply(() -> {
            WriteTxn tx = store.beginWrite();
            Tree t = store.tree("t");
            // The operation runs until released: a close must wait for it.
            tx.contains(t, keyRunning(K, () -> {
                inside.countDown();
                CloseTest.awaitQuietly(release);
            }));
            CloseTest.awaitQuietly(closed);
            return CloseTest.outcome(() -> tx.put(t, K, bytes("changed")));
        });
        assertTrue(inside.await(30, TimeUnit.SECONDS));
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<String> waiter = supply(() -> {
            waiting.countDown();
            try (WriteTxn tx = store.beginWrite()) {
                return "began revision " + tx.revision();
            } catch (RuntimeException e) {
                return e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        });
        assertTrue(waiting.await(30, TimeUnit.SECONDS));
        Thread.sleep(50);
        assertFalse(waiter.isDone(), "the waiter waits for the owner's transaction");

        CompletableFuture<Void> closing = run(store::close);
        try {
            String seen = waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            assertTrue(seen.startsWith("ClosedException: store "), seen);
            assertTrue(seen.contains("closed"), seen);
            assertFalse(closing.isDone(), "the close waits for the owner's operation still");
        } finally {
            release.countDown();
        }
        closing.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        closed.countDown();
        assertEquals("ClosedException", owner.get(BOUND.toSeconds(), TimeUnit.SECONDS));
        assertEquals("opened at revision " + committed, ChildJvm.run(OpenStoreChild.class, path.toString()).strip());
    }

    /**
     * Where writers of several processes take turns, a beginWrite that holds this process's writer
     * and waits for the turn a writer in another process keeps fails as soon as a close begins,
     * instead of keeping the close waiting up to its write timeout for the turn.
     */
    @Test
    void aBeginWriteWaitingForAnotherProcesssTurnFailsWhenCloseBegins() throws Exception {
        Path path = dir.resolve("turn.mvbt");
        Store store = Store.open(path, WriterChild.options(Durability.SYNC).writeTimeout(Duration.ofSeconds(60)));
        WriterChild.commitNext(store);
        Process child = ChildJvm.start(null, WriterChild.class, "stall", path.toString());
        CompletableFuture<Void> closing;
        try {
            ChildJvm.firstLine(child, "INSIDE");
            CompletableFuture<String> waiter = supply(() -> {
                try (WriteTxn tx = store.beginWrite()) {
                    return "began revision " + tx.revision();
                } catch (RuntimeException e) {
                    return e.getClass().getSimpleName() + ": " + e.getMessage();
                }
            });
            Thread.sleep(300);
            assertFalse(waiter.isDone(), "the waiter waits for the other process's turn");
            closing = run(store::close);
            String seen = waiter.get(10, TimeUnit.SECONDS);
            assertTrue(seen.startsWith("ClosedException: store "), seen);
            assertTrue(seen.contains("another process"), seen);
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
        // The close's own checkpoint waits for the turn, which the killed child gave back.
        closing.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThrows(ClosedException.class, store::beginRead);
    }

    /** A beginWrite called after the close began, while it still runs, fails the same way. */
    @Test
    void aBeginWriteDuringCloseFailsWithClosedException() throws Exception {
        Store store = Store.open(dir.resolve("during.mvbt"), PATIENT);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Boolean> owner = supply(() -> {
            WriteTxn tx = store.beginWrite();
            Tree t = tx.createTree("t");
            return tx.contains(t, keyRunning(K, () -> {
                inside.countDown();
                CloseTest.awaitQuietly(release);
            }));
        });
        assertTrue(inside.await(30, TimeUnit.SECONDS));
        CompletableFuture<Void> closing = run(store::close);
        try {
            // Timeouts while the close has not begun yet; then ClosedException, with the close still running.
            ClosedException e = assertTimeoutPreemptively(BOUND, () -> {
                while (true) {
                    try {
                        store.beginWrite(Duration.ofMillis(10)).close();
                    } catch (ClosedException closed) {
                        return closed;
                    } catch (WriteTimeoutException notYet) {
                        Thread.onSpinWait();
                    }
                }
            });
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertFalse(closing.isDone());
        } finally {
            release.countDown();
        }
        closing.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertFalse(owner.get(BOUND.toSeconds(), TimeUnit.SECONDS));
    }

    /**
     * A close called from inside an operation of the write transaction, on the thread that runs it
     * (here by a key the operation reads), would wait for that operation forever: it throws
     * IllegalStateException, and the store stays open and usable.
     */
    @Test
    void closeInsideAnOperationOfTheTransactionOnItsThreadIsRefused() {
        Store store = Store.open(dir.resolve("inside-op.mvbt"), PATIENT);
        AtomicReference<RuntimeException> refused = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTree("t");
                tx.put(t, K, V);
                assertTrue(tx.contains(t, keyRunning(K, () -> {
                    try {
                        store.close();
                    } catch (RuntimeException e) {
                        refused.set(e);
                    }
                })));
                tx.commit();
            }
        });
        assertRefusal(refused.get());
        try (Snapshot s = store.beginRead()) {
            assertArrayEquals(V, s.get(store.tree("t"), K));
        }
        store.close();
        assertThrows(ClosedException.class, store::beginRead);
    }

    /**
     * A close from a slow-reader handler, which the store calls on the writer's thread while it
     * begins a transaction, is refused the same way; the beginWrite fails with it and leaves the
     * writer free.
     */
    @Test
    void closeFromASlowReaderHandlerIsRefused() {
        AtomicReference<Store> opened = new AtomicReference<>();
        SlowReaderPolicy closing = new SlowReaderPolicy(1, Duration.ZERO, reader -> {
            opened.get().close();
            return false;
        });
        Store store = Store.open(dir.resolve("handler.mvbt"), PATIENT.slowReaders(closing));
        opened.set(store);
        store.update(tx -> tx.put(tx.createTree("t"), K, V));
        Snapshot old = store.beginRead();
        store.update(tx -> tx.put(store.tree("t"), K, bytes("1")));
        store.update(tx -> tx.put(store.tree("t"), K, bytes("2")));
        IllegalStateException e = assertTimeoutPreemptively(BOUND,
                () -> assertThrows(IllegalStateException.class, store::beginWrite));
        assertRefusal(e);
        // The refused close left the store open, and the writer free.
        assertArrayEquals(V, old.get(store.tree("t"), K));
        old.close();
        store.update(tx -> tx.put(store.tree("t"), K, bytes("3")));
        store.close();
        assertThrows(ClosedException.class, store::beginRead);
    }

    private static void assertRefusal(RuntimeException e) {
        assertTrue(e instanceof IllegalStateException, String.valueOf(e));
        String m = e.getMessage();
        assertTrue(m.contains("'" + Thread.currentThread().getName() + "'") || m.contains("thread '"), m);
        assertTrue(m.contains("close the store after it returns"), m);
    }

    /**
     * Work given to {@link Store#write} that closes the store (or whose store another thread closes)
     * did not commit: write throws ClosedException instead of returning as if it had.
     */
    @Test
    void writeWhoseTransactionACloseAbortedThrows() throws Exception {
        Path path = dir.resolve("write-helper.mvbt");
        Store store = Store.open(path, PATIENT);
        store.update(tx -> tx.put(tx.createTree("t"), K, V));
        ClosedException same = assertThrows(ClosedException.class, () -> store.write(tx -> {
            tx.put(store.tree("t"), K, bytes("lost"));
            store.close();
            return 1;
        }));
        assertTrue(same.getMessage().contains("was closed"), same.getMessage());

        Store again = Store.open(path, PATIENT);
        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        CompletableFuture<Integer> other = supply(() -> again.write(tx -> {
            tx.put(again.tree("t"), K, bytes("lost too"));
            written.countDown();
            CloseTest.awaitQuietly(closed);
            return 2;
        }));
        assertTrue(written.await(30, TimeUnit.SECONDS));
        again.close();
        closed.countDown();
        ExecutionException e = assertThrows(ExecutionException.class, () -> other.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof ClosedException, String.valueOf(e.getCause()));

        try (Store reopened = Store.open(path); Snapshot s = reopened.beginRead()) {
            assertArrayEquals(V, s.get(reopened.tree("t"), K));
        }
    }

    /** Work given to {@link Store#write} that closes the store after its own commit returns its result. */
    @Test
    void writeThatCommittedBeforeTheCloseReturns() {
        Path path = dir.resolve("committed.mvbt");
        Store store = Store.open(path, PATIENT);
        int result = store.write(tx -> {
            tx.put(tx.createTree("t"), K, V);
            tx.commit();
            store.close();
            return 7;
        });
        assertEquals(7, result);
        try (Store reopened = Store.open(path); Snapshot s = reopened.beginRead()) {
            assertArrayEquals(V, s.get(reopened.tree("t"), K));
            assertNull(s.get(reopened.tree("t"), bytes("other")));
        }
    }

    /**
     * A close closes the snapshots its process has open, in any thread: they say so, and their
     * reads and cursors fail naming the store.
     */
    @Test
    void closeClosesEverySnapshotOfTheStore() throws Exception {
        Store store = Store.open(dir.resolve("snapshots.mvbt"), PATIENT);
        store.update(tx -> tx.put(tx.createTree("t"), K, V));
        Tree t = store.tree("t");
        Snapshot here = store.beginRead();
        Snapshot elsewhere = supply(store::beginRead).get(30, TimeUnit.SECONDS);
        Cursor cursor = elsewhere.cursor(t);
        assertTrue(cursor.first());
        Snapshot closedBefore = store.beginRead();
        closedBefore.close();

        store.close();

        assertTrue(here.isClosed());
        assertTrue(elsewhere.isClosed());
        ClosedException read = assertThrows(ClosedException.class, () -> here.get(t, K));
        assertTrue(read.getMessage().contains("store ") && read.getMessage().contains("is closed"), read.getMessage());
        assertThrows(ClosedException.class, cursor::next);
        assertThrows(ClosedException.class, cursor::key);
        cursor.close();
        here.close();
        elsewhere.close();
        assertTrue(closedBefore.isClosed());
        // Their slots went with the close: the store opens again with none held.
        try (Store again = Store.open(dir.resolve("snapshots.mvbt"))) {
            assertEquals(0, again.readers().size(), () -> again.readers().toString());
        }
    }
}
