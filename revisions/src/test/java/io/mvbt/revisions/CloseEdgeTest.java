// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.ClosedException;
import io.mvbt.WriteTimeoutException;

/**
 * The edges of {@link Store#close()}: a writer waiting for its turn when the close begins.
 */
class CloseEdgeTest {
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
        CompletableFuture<String> owner = CompletableFuture.supplyAsync(() -> {
            WriteTxn tx = store.beginWrite();
            Tree t = store.tree("t");
            // The operation runs until released: a close must wait for it.
            tx.contains(t, keyRunning(K, () -> {
                inside.countDown();
                awaitQuietly(release);
            }));
            awaitQuietly(closed);
            return outcome(() -> tx.put(t, K, bytes("changed")));
        });
        assertTrue(inside.await(30, TimeUnit.SECONDS));
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> {
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

        CompletableFuture<Void> closing = CompletableFuture.runAsync(store::close);
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

    /** A beginWrite called after the close began, while it still runs, fails the same way. */
    @Test
    void aBeginWriteDuringCloseFailsWithClosedException() throws Exception {
        Store store = Store.open(dir.resolve("during.mvbt"), PATIENT);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Boolean> owner = CompletableFuture.supplyAsync(() -> {
            WriteTxn tx = store.beginWrite();
            Tree t = tx.createTree("t");
            return tx.contains(t, keyRunning(K, () -> {
                inside.countDown();
                awaitQuietly(release);
            }));
        });
        assertTrue(inside.await(30, TimeUnit.SECONDS));
        CompletableFuture<Void> closing = CompletableFuture.runAsync(store::close);
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

    private static String outcome(Runnable action) {
        try {
            action.run();
            return "ok";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
