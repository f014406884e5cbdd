// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

import io.mvbt.pagestore.PageStore;

/**
 * Durability: how a commit's meta reaches the disk, checkpoints (on a background thread, by
 * {@link Store#sync()} and at close), and giving the free tail of the file back. One algorithm over
 * the {@link PagePath} the store's pages take: a checkpoint seals (checksums) and flushes every
 * page written since the durable revision beside the writer (twice, where the path asks: the
 * second pass takes the commits made during the first), then the path holds the newest revision,
 * seals and flushes its last pages and makes a steady copy of its meta durable. Where the path
 * steadies its first pass ({@link PagePath#steadiesFirstPass}) the revision made durable is the
 * one the pass sealed, whose steady meta was prepared as the checkpoint started. A store in memory
 * has nothing to make durable: every method but {@link #publishCommit} returns at once.
 */
final class Checkpoints {
    private final PageStore pages;
    /** How the writer's pages reach storage: how a pass seals and flushes them, how a checkpoint ends. */
    private final PagePath path;
    private final StoreOptions options;
    private final Publisher publisher;
    private final ReaderRegistry registry;
    private final ReaderSlots slots;
    private final Peers peers;
    private final Holders holders;
    private final Health health;
    private final Adoption adoption;
    private final WriterPermit writer;
    /** Reads pages that may still lack checksums: the ones this process wrote since the last checkpoint. */
    private final PageAccess sealer;
    private final boolean durable;
    private final Object lock = new Object();
    /** The background thread; null for a store in memory or one opened read-only. */
    private final Checkpointer thread;
    /** Counts checkpoints, so that the writer learns that its hot pages were cleaned. */
    private volatile long count;
    /** The value of {@link #count} the writer last saw (holding the writer permit). */
    private long countSeen;
    /** Pages only, or redo-logged: each checkpoint lets go of the log's segments it covers. */
    private final DurabilityPolicy policy;

    Checkpoints(PageStore pages, PagePath path, StoreOptions options, Publisher publisher, ReaderRegistry registry,
            ReaderSlots slots, Peers peers, Holders holders, Health health, Adoption adoption,
            WriterPermit writer, PageAccess sealer, DurabilityPolicy policy) {
        this.pages = pages;
        this.path = path;
        this.policy = policy;
        this.options = options;
        this.publisher = publisher;
        this.registry = registry;
        this.slots = slots;
        this.peers = peers;
        this.holders = holders;
        this.health = health;
        this.adoption = adoption;
        this.writer = writer;
        this.sealer = sealer;
        this.durable = pages.durable();
        this.thread = durable && !peers.readOnly() ? new Checkpointer(pages.describe(), options) : null;
    }

    /** Starts the background threads: the checkpointer's, and the path's, told of the writer's use of its space. */
    void start(WriterState w) {
        if (thread != null) {
            path.start(w.space);
            thread.start();
        }
    }

    /** Stops the background threads, waiting for the round they are in. */
    void stop() {
        if (thread != null) {
            thread.stop();
            path.stop();
        }
    }

    long count() {
        return count;
    }

    long pagesPrefaulted() {
        return path.pagesPrepared();
    }

    // ------------------------------------------------------------------ commits

    /**
     * Publishes a commit's revision, built by {@code revisionAt} for the durable revision read under
     * the meta lock (where a checkpoint moves it): a SYNC commit seals its pages and syncs, a
     * NORMAL one writes its meta, listing the writer's flips.
     */
    void publishCommit(WriterState w, long revision, LongFunction<Revision> revisionAt, Durability durability) {
        if (!durable) {
            publisher.publishUnwritten(revisionAt.apply(publisher.durableRevision()));
            return;
        }
        if (durability == Durability.SYNC) {
            if (path.sealsBesideCheckpoint()) {
                publishSynced(w, revision, revisionAt);
            } else {
                synchronized (lock) {
                    publishSynced(w, revision, revisionAt);
                }
            }
            return;
        }
        publisher.lock();
        try {
            publisher.publish(revisionAt.apply(publisher.durableRevision()), w.space.flips);
        } finally {
            publisher.unlock();
        }
    }

    /** A commit wrote {@code pagesWritten} pages: NORMAL commits count toward the next checkpoint. */
    void written(long pagesWritten, Durability durability) {
        if (thread != null && durability == Durability.NORMAL) {
            thread.written(pagesWritten * pages.pageSize());
            if (path.checkpointDue()) {
                thread.wake();
            }
        }
    }

    /**
     * A SYNC commit: seals the pages written since the durable revision, writes a sealed meta and
     * syncs. The durable revision a checkpoint that finished while this commit waited has moved is
     * the one to hold for readers elsewhere.
     */
    private void publishSynced(WriterState w, long revision, LongFunction<Revision> revisionAt) {
        publisher.lock();
        try {
            long durableBefore = publisher.durableRevision();
            // Sealed whole before it is published: readers require seals through its own revision.
            Revision r = revisionAt.apply(durableBefore).sealedThrough(adoption.bound(revision));
            path.seal(sealer, r, durableBefore);
            publisher.publishSynced(r, w.space.flips, () -> health.sync(pages::sync));
            peers.replaced(durableBefore);
        } finally {
            publisher.unlock();
        }
    }

    /**
     * Publishes {@code revision}, above the newest, changing nothing else, as a SYNC commit
     * would: a writer session's first revision ({@link Peers#sessionRevision}).
     */
    void publishUnchanged(WriterState w, long revision) {
        synchronized (lock) {
            publishSynced(w, revision, durable -> {
                Revision base = publisher.latest();
                return new Revision(revision, durable, base.catalog, base.fresh, pages.pageCount(),
                        System.currentTimeMillis(), base.freeMapRoot, base.freeMapRevision, base.freeMapHeight,
                        base.roots);
            });
        }
    }

    // ------------------------------------------------------------------ checkpoints

    /** {@link Store#sync()}: makes every commit so far durable, as the deployment mode does it. */
    void sync() {
        if (durable) {
            peers.sync(this::syncBesideWriter, this::checkpointHoldingWriter);
        }
    }

    /** Whether a closing checkpoint is to run: a durable store open for writing whose writes did not fail. */
    boolean dueAtClose() {
        return thread != null && health.failure() == null;
    }

    /** {@link Store#sync()} beside the writer: checkpoints, then gives back the free tail if the writer is idle. */
    void syncBesideWriter() {
        checkpoint();
        // The background checkpoint this one waited for may have failed: then nothing is durable.
        health.checkUnfailed(pages.describe());
        shrink(false);
        dropZerosAhead();
    }

    /** The background checkpointer's round beside the writer: a checkpoint, and a large free tail back if the writer is idle. */
    private void backgroundRound() {
        checkpoint();
        shrink(false);
    }

    /** Checkpoints and gives back a large free tail, holding the writer permit. */
    void checkpointHoldingWriter(WriterState w) {
        checkpoint();
        shrinkHoldingWriter(w, false);
    }

    /**
     * Makes the newest meta steady and say whether the redo log records now
     * ({@link Publisher#logging}), holding the writer permit: the log's state changed.
     */
    void checkpointLogState() {
        if (durable && !publisher.headIsSteady()) {
            checkpoint(sealer);
        }
    }

    /** Checkpoints if any commit is not durable yet. */
    void checkpoint() {
        if (durable && publisher.latest().revision != publisher.durableRevision()) {
            checkpoint(sealer);
        }
    }

    /**
     * At close, holding the writer permit in its turn: a checkpoint, and a steady copy of the
     * newest meta if it is not steady yet (a SYNC commit's meta names the durable revision before
     * it), so that the next open trusts the file as it is and walks nothing; then the peers let go
     * of the freed pages. A {@link Compaction} and the closing shrink follow.
     */
    void atClose(WriterState w) {
        if (publisher.latest().revision != publisher.durableRevision() || !publisher.headIsSteady()) {
            checkpoint(sealer);
        }
        peers.closing(w, () -> releaseFreed(w));
    }

    /** Whether pages in use may move down now: in place and durable, no failure or damage, no log in replay. */
    boolean mayMovePages() {
        return durable && path.reusesPages() && health.failure() == null && health.damage() == null
                && !policy.replaying();
    }

    /** A checkpoint of whatever is not durable or steady yet, holding the writer (after a compaction's commit). */
    void checkpointAll() {
        checkpoint(sealer);
    }

    /** Lets go of the freed pages no holder reaches any more (holding the writer permit). */
    void releaseFreed(WriterState w) {
        Holders held = holders.collect(peers);
        w.space.releasePending(held.revisions(), held.count());
    }

    /** The newest revision below {@code revision} that a holder keeps, or -1 (holding the writer permit). */
    long newestHeldBelow(long revision) {
        Holders held = holders.collect(peers);
        return PendingPages.floorBelow(held.revisions(), held.count(), revision);
    }

    /** A checkpoint whose pages may lack seals (recovery of a commit that was not checkpointed). */
    void checkpoint(PageAccess sealer) {
        synchronized (lock) {
            if (health.failure() != null) {
                // After a failed fsync another may report success for pages that never reached the
                // disk: nothing may be called durable any more.
                return;
            }
            int slot = slots.claim(ReaderRegistry.CHECKPOINT);
            try {
                checkpointHolding(slot, sealer);
            } finally {
                slots.release(slot);
            }
        }
    }

    private void checkpointHolding(int slot, PageAccess sealer) {
        Revision c = peers.hold(slot);
        long since = publisher.durableRevision();
        if (c.revision == since && publisher.headIsSteady()) {
            return;
        }
        StoreEvents.Checkpoint event = new StoreEvents.Checkpoint();
        event.begin();
        if (path.steadiesFirstPass()) {
            replaced(steadyFirstPass(slot, sealer));
        } else {
            // The bulk of the writeback runs outside the meta lock, so that commits go on.
            path.seal(sealer, c, since);
            health.sync(path::flush);
            long sealed = c.revision;
            if (path.passesTwice() && publisher.latest().revision != sealed) {
                Revision c2 = peers.hold(slot);
                path.seal(sealer, c2, sealed);
                health.sync(path::flush);
                sealed = c2.revision;
            }
            replaced(path.steady(slot, sealer, sealed));
        }
        policy.checkpointed(publisher.durableRevision());
        event.end();
        if (event.shouldCommit()) {
            event.store = pages.describe();
            event.revision = publisher.durableRevision();
            event.since = since;
            event.commit();
        }
    }

    /**
     * A checkpoint that makes durable the revision c its one pass seals, not the newest at its end,
     * so that no commit waits for a sync. As it starts, under the meta lock, c's steady meta is
     * built from the newest meta, which is c's (a meta carries the free-space flips of its moment,
     * which later commits change: it cannot be built afterwards), and its slot kept pending. Beside
     * the writer c's pages are sealed and flushed, then the meta is written and its page alone
     * synced. The metas of the commits made meanwhile are newer and not steady: after {@code kill
     * -9} recovery opens at the newest of them, after a power cut at c. Returns the durable revision
     * it replaced, or -1 if a SYNC commit made a newer one durable meanwhile.
     */
    private long steadyFirstPass(int slot, PageAccess sealer) {
        Revision c;
        long since;
        Publisher.SteadyCopy copy;
        publisher.lock();
        try {
            c = publisher.latest();
            since = publisher.durableRevision();
            // From here c is what becomes durable: its pages must not be reused, though it is not durable yet.
            registry.hold(slot, c);
            copy = publisher.prepareSteadyCopy(c);
        } finally {
            publisher.unlock();
        }
        boolean synced = false;
        try {
            path.seal(sealer, c, since);
            health.sync(path::flush);
            health.sync(() -> {
                publisher.writeSteadyCopy(copy);
                pages.syncPage(copy.slot());
            });
            synced = true;
        } finally {
            if (!synced) {
                publisher.lock();
                try {
                    publisher.dropSteadyCopy(copy);
                } finally {
                    publisher.unlock();
                }
            }
        }
        publisher.lock();
        try {
            // Unless a SYNC commit made a newer revision durable meanwhile.
            return publisher.steadyCopySynced(copy);
        } finally {
            publisher.unlock();
        }
    }

    /** A checkpoint made a newer revision durable than {@code before} (or none, if -1). */
    private void replaced(long before) {
        if (before >= 0) {
            peers.replaced(before);
            count++;
        }
    }

    // ------------------------------------------------------------------ the writer's side

    /** Learns of checkpoints since the last call (holding the writer); returns whether there were any. */
    boolean learnCheckpoints(WriterState w) {
        long done = count;
        if (done == countSeen) {
            return false;
        }
        countSeen = done;
        w.space.checkpointed();
        return true;
    }

    /**
     * Has the path make the pages the writer will allocate next ready (a {@link Prefaulter}), as many
     * as it allocated in the last checkpoint window, up to what makes a checkpoint anyway (holding
     * the writer, after the pages the checkpoint let go are reusable).
     */
    void prefaultUpcoming(WriterState w) {
        path.prepareUpcoming(w.space, Math.min(1 << 20, options.checkpointBytes() / pages.pageSize()));
    }

    // ------------------------------------------------------------------ the file's size

    /**
     * Gives back the zeros written ahead of the next growth ({@link Prefaulter}): after a sync the
     * file holds what the store uses. Needs the writer, which may grow the store meanwhile.
     */
    private void dropZerosAhead() {
        if (writer.tryAcquire() == null) {
            return;
        }
        try {
            if (health.failure() == null) {
                pages.truncate(pages.pageCount());
            }
        } finally {
            writer.release();
        }
    }

    /**
     * Gives the free tail of the file back to the file system: always on close, otherwise when it
     * is at least an eighth of the file and 1 MiB. Needs the writer; skipped if a transaction runs.
     */
    void shrink(boolean always) {
        WriterState w = writer.tryAcquire();
        if (w == null) {
            return;
        }
        try {
            shrinkAndPrefault(w, always);
        } finally {
            writer.release();
        }
    }

    /**
     * Gives a large free tail back, and if a checkpoint ran since the writer last looked, prefaults
     * its next pages now (the writer is idle), not at its next transaction.
     */
    void shrinkAndPrefault(WriterState w, boolean always) {
        shrinkHoldingWriter(w, always);
        if (health.failure() == null && learnCheckpoints(w)) {
            releaseFreed(w);
            prefaultUpcoming(w);
        }
    }

    void shrinkHoldingWriter(WriterState w, boolean always) {
        FreeSpace space = w.space;
        if (!path.reusesPages()) {
            // Page numbers past the end may have been written once; they are never handed out again.
            return;
        }
        long pageCount = pages.pageCount();
        long tail = pages.roundUpToGrowthUnit(space.reusableTailStart());
        long freeTail = pageCount - tail;
        if (freeTail <= 0 || health.failure() != null || health.damage() != null || policy.replaying()
                || !always && (freeTail < pageCount / 8 || freeTail * pages.pageSize() < (1L << 20))) {
            return;
        }
        Revision base = publisher.latest();
        // First, so that a failure changes nothing.
        policy.unchanged(base.revision + 1);
        space.shrinkTo(tail);
        long durableRevision = publisher.durableRevision();
        Revision r = new Revision(base.revision + 1, durableRevision, base.catalog, base.fresh, tail,
                System.currentTimeMillis(), base.freeMapRoot, base.freeMapRevision, base.freeMapHeight, base.roots)
                .sealedThrough(adoption.bound(durableRevision));
        publisher.lock();
        try {
            publisher.publish(r, space.flips);
        } finally {
            publisher.unlock();
        }
        checkpoint(sealer);
        pages.truncate(tail);
    }

    /**
     * The background thread: checkpoints commits made in {@link Durability#NORMAL} mode every
     * interval, or sooner once enough pages were written, and gives a large free tail of the file
     * back. Commits only count pages and, rarely, wake it.
     */
    private final class Checkpointer extends StoreThread {
        private final long intervalNanos;
        private final long wakeBytes;
        private final AtomicLong writtenBytes = new AtomicLong();

        Checkpointer(String where, StoreOptions options) {
            super("mvbt-checkpoint " + where);
            this.intervalNanos = options.checkpointInterval().toNanos();
            this.wakeBytes = options.checkpointBytes();
        }

        /** A commit wrote {@code bytes} of pages. */
        void written(long bytes) {
            if (writtenBytes.addAndGet(bytes) >= wakeBytes) {
                wake();
            }
        }

        @Override
        public void run() {
            while (!stopping()) {
                LockSupport.parkNanos(this, intervalNanos);
                if (stopping()) {
                    break;
                }
                writtenBytes.set(0);
                try {
                    peers.backgroundCheckpoint(Checkpoints.this::backgroundRound, Checkpoints.this::checkpointHoldingWriter);
                } catch (Throwable t) {
                    // Storage failures are recorded where they happen; anything else is recorded here.
                    health.failed(t);
                }
            }
        }
    }
}
