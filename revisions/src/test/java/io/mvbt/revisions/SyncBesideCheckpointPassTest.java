// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.mvbt.StoreFailedException;
import io.mvbt.pagestore.PageStore;
import io.mvbt.testkit.ForwardingPageStore;
import io.mvbt.testkit.GatedSyncPageStore;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * A SYNC commit made while a checkpoint of the mapped path runs beside the writer: the checkpoint
 * makes durable the older revision c it took as it started, with a steady meta prepared then, and
 * must never take the durable state back to c. A SYNC commit that returned survives a power cut at
 * any later step (during the checkpoint's pass, during its meta's sync, after it, with NORMAL
 * commits after the SYNC one), and the store opens with exactly the content of the revision it
 * opens at. The same with a redo log, whose sync makes a SYNC commit durable while the pages follow
 * at the checkpoint; and for a {@link Store#sync()} that waits behind the checkpoint's pass.
 */
class SyncBesideCheckpointPassTest {
    private static final int KEYS = 300;
    private static final int PAGE = 4096;
    private static final int SEEDS = 12;
    private static final StoreOptions OPTIONS = StoreOptions.defaults().durability(Durability.NORMAL)
            .checkpointInterval(Duration.ofHours(1)).checkpointBytes(1L << 40);
    private static final StoreOptions LOGGED = OPTIONS.redoLog(true);

    /** Where the checkpoint waits while the writer commits beside it. */
    private enum At {
        /** In the pass's walk, after it sealed one page of c: the rest of c is still to be walked. */
        WALK,
        /** The pass's: c's pages are sealed, not yet synced, and c's steady meta not yet written. */
        PASS,
        /** The meta's: c's pages are synced and its steady meta written into its slot, not yet synced. */
        META
    }

    /** Where the power goes. */
    private enum Cut {
        /** During the last SYNC commit's own sync (of the pages, or of the redo log): it does not return. */
        SYNC,
        /** During the pass's sync, after the SYNC commits returned. */
        PASS,
        /** During the sync of the checkpoint's steady meta, after the SYNC commits returned. */
        META,
        /** After the SYNC commits and a NORMAL one returned, while the checkpoint waits: no sync is under way. */
        HELD,
        /** After the checkpoint ended and two more NORMAL commits. */
        AFTER,
        /** No power cut: the process dies while the checkpoint waits, and the page cache keeps every write. */
        KILL
    }

    @AfterEach
    void restore() {
        RedoLog.segmentBytes = 64L << 20;
    }

    /** Holds a chosen thread at the first page it seals (it tells the store it wrote it) until released. */
    private static final class SealHold extends ForwardingPageStore {
        private volatile Thread holding;
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch open = new CountDownLatch(1);

        SealHold(PageStore pages) {
            super(pages);
        }

        /** {@code task}, whose thread is held at the first page it seals. */
        Runnable holding(Runnable task) {
            return () -> {
                holding = Thread.currentThread();
                try {
                    task.run();
                } finally {
                    holding = null;
                }
            };
        }

        @Override
        public void written(long pageNo, int n) {
            super.written(pageNo, n);
            if (Thread.currentThread() == holding) {
                holding = null;
                entered.countDown();
                try {
                    assertTrue(open.await(30, TimeUnit.SECONDS), "the held seal was never released");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }

        void awaitEntered() throws InterruptedException {
            assertTrue(entered.await(30, TimeUnit.SECONDS), "the checkpoint sealed no page");
        }

        void release() {
            open.countDown();
        }
    }

    /** The commits made, and what the tree held at each revision. */
    private static final class Model {
        private final Store store;
        private final Random random;
        private TreeMap<byte[], byte[]> current = ModelHarness.newMap();
        /** By revision; a commit that failed is kept too, as it may have reached the disk all the same. */
        final TreeMap<Long, TreeMap<byte[], byte[]>> byRevision = new TreeMap<>();

        Model(Store store, Random random) {
            this.store = store;
            this.random = random;
        }

        /**
         * One commit of puts and deletes at random keys (all keys in the first), of a few keys or of
         * most leaves, so that a revision shares many pages with the one before it or few; returns
         * its revision.
         */
        long commit(Durability durability) {
            TreeMap<byte[], byte[]> next = new TreeMap<>(current);
            long revision = store.revision() + 1;
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTreeIfAbsent("t");
                boolean first = current.isEmpty();
                int ops = first ? KEYS : random.nextInt(3) == 0 ? 60 : 1 + random.nextInt(5);
                for (int op = 0; op < ops; op++) {
                    byte[] k = key(first ? op : random.nextInt(KEYS));
                    if (!first && random.nextInt(4) == 0) {
                        tx.delete(t, k);
                        next.remove(k);
                    } else {
                        byte[] v = new byte[8 + random.nextInt(200)];
                        random.nextBytes(v);
                        tx.put(t, k, v);
                        next.put(k, v);
                    }
                }
                byRevision.put(revision, next);
                tx.commit(durability);
            }
            assertEquals(revision, store.revision(), "a commit's revision");
            current = next;
            return revision;
        }
    }

    /**
     * What makes the pages durable: {@link Store#sync()} checkpoints, but with a redo log it syncs
     * the log alone, so the checkpoint is started as the background checkpointer starts it.
     */
    private static Runnable checkpointer(Store store, boolean logged) throws ReflectiveOperationException {
        return logged ? backgroundCheckpoint(store) : store::sync;
    }

    /** A checkpoint as the background checkpointer runs it: it fails only if its own syncs fail. */
    private static Runnable backgroundCheckpoint(Store store) throws ReflectiveOperationException {
        java.lang.reflect.Field field = Store.class.getDeclaredField("checkpoints");
        field.setAccessible(true);
        Checkpoints checkpoints = (Checkpoints) field.get(store);
        return checkpoints::checkpoint;
    }

    @Test
    void aSyncCommitDuringTheCheckpointSurvivesAPowerCutAtEveryLaterStep() throws Exception {
        for (At at : At.values()) {
            for (Cut cut : Cut.values()) {
                if (at == At.META && cut == Cut.PASS) {
                    continue; // the pass is over before the writer commits
                }
                for (int seed = 0; seed < SEEDS; seed++) {
                    syncBesidePass(at, cut, seed, false);
                }
            }
        }
    }

    @Test
    void aLoggedSyncCommitDuringTheCheckpointSurvivesAPowerCutAtEveryLaterStep() throws Exception {
        for (At at : At.values()) {
            for (Cut cut : Cut.values()) {
                if (at == At.META && cut == Cut.PASS || cut == Cut.KILL) {
                    continue; // KILL: the simulated log keeps no page cache apart from what it synced
                }
                for (int seed = 0; seed < SEEDS; seed++) {
                    syncBesidePass(at, cut, seed, true);
                }
            }
        }
    }

    private void syncBesidePass(At at, Cut cut, int seed, boolean logged) throws Exception {
        String where = (logged ? "logged, " : "") + "held at the " + at + ", cut " + cut + ", seed " + seed;
        Random random = new Random(seed * 0x9E3779B97F4A7C15L + at.ordinal() * 31 + cut.ordinal());
        // Small segments, at times: a checkpoint then lets go of whole segments, which replay must not need.
        RedoLog.segmentBytes = random.nextInt(4) == 0 ? 64L << 20 : 2048 + random.nextInt(8192);
        PowerCutPageStore disk = new PowerCutPageStore(PAGE);
        GatedSyncPageStore gated = new GatedSyncPageStore(disk);
        SealHold sealHold = new SealHold(gated);
        PowerCutRedoStorage log = logged ? new PowerCutRedoStorage() : null;
        Store store = Store.over(sealHold, logged ? LOGGED : OPTIONS, true, log);
        Runnable checkpointer = checkpointer(store, logged);
        Model model = new Model(store, random);
        model.commit(Durability.NORMAL);
        checkpointer.run();
        long d = model.commit(Durability.NORMAL);
        for (int i = random.nextInt(3); i > 0; i--) {
            d = model.commit(Durability.NORMAL);
        }
        checkpointer.run();
        assertEquals(d, store.stats().durableRevision(), where);
        long c = model.commit(Durability.NORMAL);

        // The disk's syncs from here, in order: with the walk or the pass held, the SYNC commits'
        // (one each, none with a log), the pass's, the meta's; with the meta held, the pass's first.
        int normalsBefore = random.nextInt(3);
        int syncCommits = 1 + random.nextInt(2);
        int pageSyncsPerCommit = logged ? 0 : 1;
        long k = disk.syncs();
        long passSync = k + 1 + (at != At.META ? syncCommits * pageSyncsPerCommit : 0);
        long metaSync = k + 2 + syncCommits * pageSyncsPerCommit;
        AtomicReference<byte[]> cutImage = new AtomicReference<>();
        AtomicReference<PowerCutRedoStorage> logImage = new AtomicReference<>();
        if (cut == Cut.PASS) {
            disk.cutDuringSync(passSync, new Random(seed));
        } else if (cut == Cut.META) {
            disk.cutDuringSync(metaSync, new Random(seed));
        }

        GatedSyncPageStore.Gate gate = at == At.WALK ? null : gated.gate(at == At.PASS ? 1 : 2);
        CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(gate == null ? sealHold.holding(checkpointer)
                : checkpointer);
        long synced = d;
        boolean syncFailed = false;
        // Released whatever happens, so that a failure here leaves no checkpoint waiting.
        Runnable release = gate == null ? sealHold::release : gate::release;
        try {
            if (gate == null) {
                sealHold.awaitEntered();
            } else {
                gate.awaitEntered();
            }
            for (int i = 0; i < normalsBefore; i++) {
                model.commit(Durability.NORMAL);
            }
            for (int i = 0; i < syncCommits && !syncFailed; i++) {
                if (cut == Cut.SYNC && i == syncCommits - 1) {
                    // The next sync is this commit's (its pages', or its log's): the checkpoint waits.
                    if (logged) {
                        log.cutDuringSync(log.syncs() + 1, new Random(seed),
                                () -> cutImage.set(disk.cut(new Random(seed + 1000))));
                    } else {
                        disk.cutDuringSync(disk.syncs() + 1, new Random(seed));
                    }
                }
                try {
                    long s = model.commit(Durability.SYNC);
                    synced = s;
                    assertTrue(store.stats().durableRevision() >= s, where + ": SYNC commit " + s + " returned, durable "
                            + store.stats().durableRevision());
                } catch (StoreFailedException e) {
                    assertCausedByTheCut(where + ": the SYNC commit", e);
                    syncFailed = true;
                }
            }
            assertEquals(cut == Cut.SYNC, syncFailed, where + ": whether the last SYNC commit failed");
            if (!syncFailed) {
                model.commit(Durability.NORMAL);
            }
            if (cut == Cut.HELD) {
                cutImage.set(disk.cut(random));
                if (logged) {
                    logImage.set(log.cut(random));
                }
            } else if (cut == Cut.KILL) {
                cutImage.set(CheckpointBesideWriterTest.pageCache(disk));
            }
        } finally {
            release.run();
        }
        boolean checkpointed = endedOrCut(checkpoint, where + ": the checkpoint");
        if (!(logged && cut == Cut.SYNC)) {
            // With a log, its cut leaves the disk working: the checkpoint may end.
            boolean ends = cut == Cut.HELD || cut == Cut.AFTER || cut == Cut.KILL;
            assertEquals(ends, checkpointed, where + ": the checkpoint's outcome");
        }
        if (checkpointed && !syncFailed) {
            assertTrue(store.stats().durableRevision() >= synced, where + ": the checkpoint of " + c
                    + " took the durable revision back from " + synced + " to " + store.stats().durableRevision());
        }
        if (cut == Cut.AFTER) {
            model.commit(Durability.NORMAL);
            model.commit(Durability.NORMAL);
            cutImage.set(disk.cut(random));
            if (logged) {
                logImage.set(log.cut(random));
            }
        } else if (cut == Cut.PASS || cut == Cut.META || cut == Cut.SYNC && !logged) {
            cutImage.set(disk.cutImage());
            if (logged) {
                // The writer is idle since the disk's cut: the log is as it was then.
                logImage.set(log.cut(random));
            }
        } else if (cut == Cut.SYNC) {
            logImage.set(log.cutImage());
        }
        try {
            store.close();
        } catch (RuntimeException e) {
            // The power went: closing may fail.
        }
        assertReopens(where, cutImage.get(), logImage.get(), cut != Cut.KILL, model, synced);
    }

    /**
     * Opens the store left on the disk (after a reboot, unless the process alone died) and checks
     * that it opens at {@code floor} or later, at most at the newest commit, with exactly that
     * revision's content, and undamaged.
     */
    private static void assertReopens(String where, byte[] image, PowerCutRedoStorage logImage, boolean reboot,
            Model model, long floor) {
        assertTrue(image != null, where + ": no image of the disk");
        long high = BootId.HIGH;
        long low = BootId.LOW;
        if (reboot) {
            BootId.reboot();
        }
        PowerCutPageStore pages = PowerCutPageStore.of(image, PAGE);
        try (Store reopened = logImage == null ? Store.over(pages, OPTIONS, false)
                : Store.over(pages, LOGGED, false, logImage)) {
            long at = reopened.revision();
            long newest = model.byRevision.lastKey();
            assertTrue(at >= floor, where + ": opened at " + at + ", below " + floor);
            assertTrue(at <= newest, where + ": opened at " + at + ", above the newest commit " + newest);
            if (!reboot) {
                assertEquals(newest, at, where + ": a kill lost a commit");
            }
            Map.Entry<Long, TreeMap<byte[], byte[]>> expected = model.byRevision.floorEntry(at);
            try (Snapshot snap = reopened.beginRead()) {
                assertNull(CrashWorkload.difference(snap, reopened.tree("t"), expected.getValue()),
                        where + ": content at revision " + at);
            }
            reopened.check().throwIfDamaged();
        } finally {
            BootId.HIGH = high;
            BootId.LOW = low;
        }
    }

    /** Fails unless {@code failure} came from the power cut: a step that failed otherwise found damage. */
    /** Waits for {@code task}: whether it ended, or false if the power cut failed it (any other failure throws). */
    private static boolean endedOrCut(Future<?> task, String what) throws InterruptedException {
        try {
            task.get();
            return true;
        } catch (ExecutionException e) {
            assertCausedByTheCut(what, e.getCause());
            return false;
        }
    }

    private static void assertCausedByTheCut(String what, Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("power")) {
                return;
            }
        }
        throw new AssertionError(what + " failed, and not for the power cut", failure);
    }

    /** Whether {@code thread} waits to enter the checkpoint that another one runs. */
    private static boolean waitsForTheCheckpoint(Thread thread) {
        if (thread.getState() != Thread.State.BLOCKED) {
            return false;
        }
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(Checkpoints.class.getName()) && frame.getMethodName().equals("checkpoint")) {
                return true;
            }
        }
        return false;
    }

    /** Where the power goes when a {@link Store#sync()} waits behind a background checkpoint's pass. */
    private enum QueuedCut {
        /** The first checkpoint's pass. */
        FIRST_PASS,
        /** The first checkpoint's meta. */
        FIRST_META,
        /** The pass of the checkpoint the waiting sync runs. */
        SECOND_PASS,
        /** Its meta. */
        SECOND_META,
        /** After the waiting sync returned, and a NORMAL commit. */
        AFTER
    }

    @Test
    void aSyncWaitingBehindABackgroundCheckpointsPassIsDurableWhenItReturns() throws Exception {
        for (QueuedCut cut : QueuedCut.values()) {
            for (int seed = 0; seed < SEEDS / 2; seed++) {
                queuedSync(cut, seed);
            }
        }
    }

    private void queuedSync(QueuedCut cut, int seed) throws Exception {
        String where = "sync behind the pass, cut " + cut + ", seed " + seed;
        Random random = new Random(seed * 0x9E3779B97F4A7C15L + cut.ordinal());
        PowerCutPageStore disk = new PowerCutPageStore(PAGE);
        GatedSyncPageStore gated = new GatedSyncPageStore(disk);
        Store store = Store.over(gated, OPTIONS, true);
        Model model = new Model(store, random);
        model.commit(Durability.NORMAL);
        long d = model.commit(Durability.NORMAL);
        store.sync();
        long c = model.commit(Durability.NORMAL);
        if (cut != QueuedCut.AFTER) {
            disk.cutDuringSync(disk.syncs() + 1 + cut.ordinal(), new Random(seed));
        }
        GatedSyncPageStore.Gate pass = gated.gate(1);
        // Not Store#sync: its last check of the store's health may see the waiting sync's failure.
        CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(backgroundCheckpoint(store));
        pass.awaitEntered();
        long n;
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread waiting;
        try {
            n = model.commit(Durability.NORMAL);
            for (int i = random.nextInt(2); i > 0; i--) {
                n = model.commit(Durability.NORMAL);
            }
            waiting = new Thread(() -> {
                try {
                    store.sync();
                } catch (Throwable t) {
                    failed.set(t);
                }
            }, "waiting sync");
            waiting.start();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!waitsForTheCheckpoint(waiting) && waiting.isAlive()) {
                assertTrue(System.nanoTime() < deadline, where + ": the sync never waited for the checkpoint");
                Thread.onSpinWait();
            }
            assertTrue(waiting.isAlive(), where + ": the sync returned while the checkpoint's pass was held");
        } finally {
            pass.release();
        }
        boolean checkpointed = endedOrCut(checkpoint, where + ": the first checkpoint");
        waiting.join();
        boolean synced = failed.get() == null;
        if (!synced) {
            // Its own checkpoint's sync failed, or it found the store failed by the first one's.
            assertTrue(failed.get() instanceof StoreFailedException, where + ": the waiting sync threw " + failed.get());
            assertCausedByTheCut(where + ": the waiting sync", failed.get());
        }
        assertEquals(cut.compareTo(QueuedCut.FIRST_META) > 0, checkpointed, where + ": the first checkpoint's outcome");
        assertEquals(cut == QueuedCut.AFTER, synced, where + ": the waiting sync's outcome (" + failed.get() + ")");
        byte[] image;
        if (synced) {
            assertTrue(store.stats().durableRevision() >= n, where + ": the sync returned before " + n + " was durable");
            model.commit(Durability.NORMAL);
            image = disk.cut(random);
        } else {
            image = disk.cutImage();
        }
        try {
            store.close();
        } catch (RuntimeException e) {
            // The power went: closing may fail.
        }
        long floor = synced ? n : checkpointed ? c : d;
        assertReopens(where, image, null, true, model, floor);
    }
}
