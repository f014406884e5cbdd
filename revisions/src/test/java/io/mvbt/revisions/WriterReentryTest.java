// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.mvbt.WriteTimeoutException;

/**
 * A thread that asks for the writer while it holds it is told at once, and a writer that times out
 * is told which thread holds the writer.
 */
class WriterReentryTest {
    /** A wait that would end in a {@link WriteTimeoutException}, not the refusal the tests expect. */
    private static final Duration WAIT = Duration.ofSeconds(3);

    @Test
    void beginWriteOnTheThreadHoldingTheWriterFailsAtOnce() {
        try (Store store = Store.inMemory(StoreOptions.defaults().writeTimeout(WAIT))) {
            try (WriteTxn tx = store.beginWrite()) {
                IllegalStateException nested = assertThrows(IllegalStateException.class, store::beginWrite);
                assertTrue(nested.getMessage().contains("'" + Thread.currentThread().getName() + "'"), nested.getMessage());
                assertTrue(nested.getMessage().contains("commit or close"), nested.getMessage());
                assertThrows(IllegalStateException.class, () -> store.beginWrite(WAIT));
                // The refusal leaves the open transaction usable.
                tx.createTree("t");
                tx.commit();
            }
            try (WriteTxn again = store.beginWrite()) {
                assertTrue(again.hasTree(store.tree("t")));
            }
        }
    }

    @Test
    void aNestedWriteHelperFailsAtOnceAndTheOuterOneAborts() {
        try (Store store = Store.inMemory(StoreOptions.defaults().writeTimeout(WAIT))) {
            long before = store.revision();
            assertThrows(IllegalStateException.class, () -> store.update(tx -> {
                tx.createTree("t");
                store.update(inner -> inner.createTree("u"));
            }));
            assertEquals(before, store.revision(), "nothing was committed");
        }
    }

    @Test
    void aWriteTimeoutNamesTheThreadThatHoldsTheWriter() throws Exception {
        try (Store store = Store.inMemory()) {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                try (WriteTxn tx = store.beginWrite()) {
                    holding.countDown();
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "the-holding-thread");
            holder.start();
            assertTrue(holding.await(10, TimeUnit.SECONDS));
            try {
                WriteTimeoutException timeout = assertThrows(WriteTimeoutException.class,
                        () -> store.beginWrite(Duration.ofMillis(20)));
                assertTrue(timeout.getMessage().contains("thread 'the-holding-thread' holds it"), timeout.getMessage());
            } finally {
                done.countDown();
                holder.join();
            }
            try (WriteTxn tx = store.beginWrite()) {
                assertFalse(tx.isFinished());
            }
        }
    }

    @Test
    void aTransactionEndedOnAnotherThreadLetsItsBeginnerWriteAgain() throws Exception {
        try (Store store = Store.inMemory(StoreOptions.defaults().writeTimeout(WAIT))) {
            WriteTxn handedOver = store.beginWrite();
            handedOver.createTree("t");
            CompletableFuture.runAsync(handedOver::commit).get(10, TimeUnit.SECONDS);
            try (WriteTxn tx = store.beginWrite()) {
                assertTrue(tx.hasTree(store.tree("t")));
            }
        }
    }
}
