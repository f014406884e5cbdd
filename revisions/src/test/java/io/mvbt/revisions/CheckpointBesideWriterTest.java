// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.Test;

import io.mvbt.testkit.ForwardingPageStore;
import io.mvbt.testkit.GatedSyncPageStore;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * A checkpoint of the mapped path makes durable the revision its pass sealed, and syncs nothing
 * while it holds the meta lock, so commits made meanwhile never wait for a sync; a power cut at any
 * step of it, or a {@code kill -9}, opens the store at a revision whose content is right.
 */
class CheckpointBesideWriterTest {
    private static final int KEYS = 300;
    private static final int PAGE = 4096;

    private static byte[] value(int i, int round) {
        return ("round-" + round + "-value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static StoreOptions options() {
        return StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1)).checkpointBytes(1L << 40);
    }

    /** Commits one round; returns its revision. */
    private static long writeRound(Store store, int round) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), value(i, round));
            }
            tx.commit(Durability.NORMAL);
        }
        return store.revision();
    }

    /** Records every sync made while the thread making it held the meta lock. */
    private static final class LockWatchingPageStore extends ForwardingPageStore {
        volatile ReentrantLock metaLock;
        final List<String> underLock = new ArrayList<>();

        LockWatchingPageStore(io.mvbt.pagestore.PageStore pages) {
            super(pages);
        }

        private void check(String what) {
            ReentrantLock lock = metaLock;
            if (lock != null && lock.isHeldByCurrentThread()) {
                synchronized (underLock) {
                    underLock.add(what + " on " + Thread.currentThread().getName());
                }
            }
        }

        @Override
        public void sync() {
            check("sync");
            super.sync();
        }

        @Override
        public void syncPage(long pageNo) {
            check("sync of page " + pageNo);
            super.syncPage(pageNo);
        }
    }

    private static ReentrantLock metaLock(Store store) throws ReflectiveOperationException {
        java.lang.reflect.Field publisher = Store.class.getDeclaredField("publisher");
        publisher.setAccessible(true);
        java.lang.reflect.Field lock = Publisher.class.getDeclaredField("lock");
        lock.setAccessible(true);
        return (ReentrantLock) lock.get(publisher.get(store));
    }

    @Test
    void aCheckpointSyncsNothingUnderTheMetaLockAndMakesItsPassDurable() throws Exception {
        PowerCutPageStore disk = new PowerCutPageStore(PAGE);
        GatedSyncPageStore gated = new GatedSyncPageStore(disk);
        LockWatchingPageStore watched = new LockWatchingPageStore(gated);
        try (Store store = Store.over(watched, options(), true)) {
            watched.metaLock = metaLock(store);
            writeRound(store, 0);
            store.sync();
            long c = writeRound(store, 1);
            // Hold the checkpoint's pass (its first sync) while the writer commits beside it.
            GatedSyncPageStore.Gate pass = gated.gate(1);
            CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(store::sync);
            pass.awaitEntered();
            long during = writeRound(store, 2);
            pass.release();
            checkpoint.get();
            synchronized (watched.underLock) {
                assertEquals(List.of(), watched.underLock, "a checkpoint synced while holding the meta lock");
            }
            assertEquals(c, store.stats().durableRevision(), "the durable revision is the one the pass sealed");
            assertEquals(during, store.revision());
            store.sync();
            assertEquals(store.revision(), store.stats().durableRevision());
        }
    }

    /** Where the power goes: during the pass's sync, during the meta's sync, or after the checkpoint. */
    private enum Cut {
        PASS, META, AFTER
    }

    @Test
    void aPowerCutAtAnyStepOpensAtTheLastCheckpointOrLaterWithItsContent() throws Exception {
        for (Cut cut : Cut.values()) {
            for (int seed = 0; seed < 12; seed++) {
                powerCut(cut, seed);
            }
        }
    }

    private void powerCut(Cut cut, int seed) throws Exception {
        PowerCutPageStore disk = new PowerCutPageStore(PAGE);
        GatedSyncPageStore gated = new GatedSyncPageStore(disk);
        Store store = Store.over(gated, options(), true);
        List<long[]> rounds = new ArrayList<>();
        rounds.add(new long[] {writeRound(store, 0), 0});
        store.sync();
        long before = store.stats().durableRevision();
        rounds.add(new long[] {writeRound(store, 1), 1});
        long c = store.revision();
        GatedSyncPageStore.Gate pass = gated.gate(1);
        if (cut != Cut.AFTER) {
            disk.cutDuringSync(disk.syncs() + (cut == Cut.PASS ? 1 : 2), new Random(seed));
        }
        CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(store::sync);
        pass.awaitEntered();
        rounds.add(new long[] {writeRound(store, 2), 2});
        pass.release();
        boolean checkpointed;
        try {
            checkpoint.get();
            checkpointed = true;
        } catch (java.util.concurrent.ExecutionException e) {
            checkpointed = false;
        }
        assertEquals(cut == Cut.AFTER, checkpointed, cut + ": the checkpoint's outcome");
        byte[] image = cut == Cut.AFTER ? disk.cut(new Random(seed)) : disk.cutImage();
        try {
            store.close();
        } catch (RuntimeException e) {
            // The power went: closing may fail.
        }
        long high = BootId.HIGH;
        long low = BootId.LOW;
        BootId.reboot();
        try (Store reopened = Store.over(PowerCutPageStore.of(image, PAGE), options(), false)) {
            long at = reopened.revision();
            long floor = cut == Cut.AFTER ? c : before;
            assertTrue(at >= floor, cut + " seed " + seed + ": opened at " + at + ", below " + floor);
            int round = -1;
            for (long[] r : rounds) {
                if (r[0] <= at) {
                    round = (int) r[1];
                }
            }
            try (Snapshot snap = reopened.beginRead()) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(value(i, round), snap.get(reopened.tree("t"), key(i)),
                            cut + " seed " + seed + ": key " + i + " at revision " + at);
                }
            }
        } finally {
            BootId.HIGH = high;
            BootId.LOW = low;
        }
    }

    @Test
    void aKillDuringOrAfterTheCheckpointOpensAtTheNewestCommit() throws Exception {
        PowerCutPageStore disk = new PowerCutPageStore(PAGE);
        GatedSyncPageStore gated = new GatedSyncPageStore(disk);
        Store store = Store.over(gated, options(), true);
        writeRound(store, 0);
        store.sync();
        writeRound(store, 1);
        GatedSyncPageStore.Gate meta = gated.gate(2);
        CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(store::sync);
        meta.awaitEntered();
        // The meta is written, not synced: the process dies with the page cache intact.
        long during = writeRound(store, 2);
        assertNewestAfterKill(pageCache(disk), during, 2);
        meta.release();
        checkpoint.get();
        long after = writeRound(store, 3);
        assertNewestAfterKill(pageCache(disk), after, 3);
        store.close();
    }

    /** What the page cache holds: every page as written, as a {@code kill -9} leaves the file. */
    static byte[] pageCache(PowerCutPageStore disk) {
        byte[] image = new byte[(int) (disk.pageCount() * PAGE)];
        for (long p = 0; p < disk.pageCount(); p++) {
            disk.buffer(p, 1).get(image, (int) (p * PAGE), PAGE);
        }
        return image;
    }

    private static void assertNewestAfterKill(byte[] image, long newest, int round) {
        try (Store reopened = Store.over(PowerCutPageStore.of(image, PAGE), options(), false);
                Snapshot snap = reopened.beginRead()) {
            assertEquals(newest, reopened.revision(), "a NORMAL commit was lost to a kill");
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i, round), snap.get(reopened.tree("t"), key(i)));
            }
        }
    }
}
