// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.mvbt.StorageException;
import io.mvbt.StoreFailedException;
import io.mvbt.testkit.ForwardingPageStore;
import io.mvbt.testkit.GatedSyncPageStore;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * After a failed fsync the background checkpointer syncs no more and makes nothing durable: on
 * Linux a second fsync may report success for pages the first failed to write.
 */
class RetryAfterFailedSyncTest {
    @Test
    void noSyncAfterAFailedOne() throws Exception {
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        AtomicInteger syncs = new AtomicInteger();
        AtomicInteger failNext = new AtomicInteger();
        ForwardingPageStore failing = new ForwardingPageStore(disk) {
            @Override
            public void sync() {
                syncs.incrementAndGet();
                if (failNext.getAndSet(0) == 1) {
                    throw new StorageException("fdatasync failed: EIO (injected)");
                }
                pages.sync();
            }
        };
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofMillis(50)).checkpointBytes(1L << 40);
        Store store = Store.over(failing, options, true);
        Thread.sleep(200);
        // Armed before the commit: whichever syncs it first, the checkpointer or sync() below, fails
        // (armed after it, a checkpoint in between would leave sync() nothing to do).
        failNext.set(1);
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(tx.createTreeIfAbsent("t"), "k".getBytes(), "v".getBytes());
            tx.commit(Durability.NORMAL);
        }
        assertThrows(StoreFailedException.class, store::sync);
        int after = syncs.get();
        long durableBefore = store.stats().durableRevision();
        Thread.sleep(500);
        assertEquals(after, syncs.get(), "the background checkpointer fsynced again after a failed fsync");
        assertEquals(durableBefore, store.stats().durableRevision());
        store.close();
    }

    @Test
    void aSyncThatWaitedForAFailedCheckpointFailsToo() throws Exception {
        AtomicInteger failNext = new AtomicInteger();
        ForwardingPageStore failing = new ForwardingPageStore(new PowerCutPageStore(4096)) {
            @Override
            public void sync() {
                if (failNext.getAndSet(0) == 1) {
                    throw new StorageException("fdatasync failed: EIO (injected)");
                }
                pages.sync();
            }
        };
        GatedSyncPageStore gated = new GatedSyncPageStore(failing);
        Store store = Store.over(gated, StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofMillis(50)).checkpointBytes(1L << 40), true);
        Thread.sleep(200);
        // The background checkpointer's next fsync is held, then fails; sync() waits for it meanwhile.
        GatedSyncPageStore.Gate gate = gated.gate(1);
        failNext.set(1);
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(tx.createTreeIfAbsent("t"), "k".getBytes(), "v".getBytes());
            tx.commit(Durability.NORMAL);
        }
        gate.awaitEntered();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread syncing = new Thread(() -> {
            try {
                store.sync();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        syncing.start();
        Thread.sleep(100);
        gate.release();
        syncing.join(10_000);
        assertInstanceOf(StoreFailedException.class, thrown.get(), "sync() returned as if its commits were durable");
        store.close();
    }
}
