// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.mvbt.ClosedException;
import io.mvbt.WriteTimeoutException;
import io.mvbt.pagestore.local.FilePageStore;

/**
 * Writers of several processes taking turns on one file ({@link StoreOptions#sharedWriters}; see
 * {@link Peers}). A writer holds the file's writer lock for one transaction (or checkpoint) at a
 * time; at the start of each turn it catches up with what other processes committed since its
 * last one, and runs freed by every process are told through the lock file's {@link FreedLog}.
 * Between turns it follows the announced revision as a read-only store does.
 */
final class TurnTakingPeers implements Peers {
    private final FilePageStore file;
    private final ReaderRegistry registry;
    private final ReaderSlots slots;
    private final Publisher publisher;
    private final Adoption adoption;
    private final Health health;
    private final Holders holders;
    private final WriterPermit writer;
    private final Duration writeTimeout;
    private final AtomicLong writerWaits;
    private final FileFollower follower;
    /** Runs freed by commits, told between writers that take turns. */
    private final FreedLog freedLog;
    /** The entries of {@link #freedLog} this process has accounted for (in a turn only). */
    private long freedSeen;

    TurnTakingPeers(FilePageStore file, ReaderRegistry registry, ReaderSlots slots, Publisher publisher,
            Adoption adoption, Health health, Holders holders, WriterPermit writer,
            StoreOptions options, AtomicLong writerWaits, FileFollower follower) {
        this.file = file;
        this.registry = registry;
        this.slots = slots;
        this.publisher = publisher;
        this.adoption = adoption;
        this.health = health;
        this.holders = holders;
        this.writer = writer;
        this.writeTimeout = options.writeTimeout();
        this.writerWaits = writerWaits;
        this.follower = follower;
        this.freedLog = new FreedLog(file.lockFile());
    }

    /** The store opened in the turn {@link FilePageStore#openShared} took; it ends here. */
    @Override
    public void opened(WriterState w, boolean created) {
        w.space.logFreesTo(freedLog);
        endTurn();
    }

    @Override
    public Revision newest() {
        return follower.newest();
    }

    @Override
    public Revision hold(int slot) {
        return follower.hold(slot);
    }

    @Override
    public void release(int slot) {
        slots.release(slot);
    }

    @Override
    public Turn takeTurn(WriterState w, long nanos, String what, Duration timeout) {
        if (!file.takeTurn(0)) {
            writerWaits.incrementAndGet();
            // A close that begins meanwhile must not wait for this wait: it waits for the permit this holds.
            if (!file.takeTurn(Math.max(0, nanos), writer::closing)) {
                if (writer.closing()) {
                    throw new ClosedException("store " + file.describe() + " was closed while " + what
                            + " waited for the turn of a writer in another process");
                }
                long pid = file.lockFile().writerPid();
                throw new WriteTimeoutException(what + " waited " + timeout + " for the write transaction of another"
                        + " process" + (pid > 0 ? " (pid " + pid + ")" : ""));
            }
        }
        catchUpOrLeave(w);
        return this::endTurn;
    }

    @Override
    public Turn closingTurn(WriterState w, long nanos) {
        if (!file.takeTurn(nanos)) {
            return null;
        }
        catchUpOrLeave(w);
        return this::endTurn;
    }

    /** Checkpoints every process's commits in a turn of this process's writer. */
    @Override
    public void sync(Runnable besideWriter, Consumer<WriterState> inTurn) {
        WriterState w = writer.acquire("sync", writeTimeout);
        try (Turn turn = takeTurn(w, writeTimeout.toNanos(), "sync", writeTimeout)) {
            inTurn.accept(w);
        } finally {
            writer.release();
        }
    }

    /** Skips the round if this process is writing or another process does not end its turn soon. */
    @Override
    public void backgroundCheckpoint(Runnable besideWriter, Consumer<WriterState> inTurn) {
        if (publisher.latest().revision == publisher.durableRevision() && registry.published() == publisher.lastAnnouncedWord()) {
            return;
        }
        WriterState w = writer.tryAcquire();
        if (w == null) {
            return;
        }
        try {
            if (!file.takeTurn(TimeUnit.MILLISECONDS.toNanos(100))) {
                return;
            }
            catchUpOrLeave(w);
            try (Turn turn = this::endTurn) {
                inTurn.accept(w);
            }
        } finally {
            writer.release();
        }
    }

    /**
     * {@link #catchUp}, or on failure leaves the turn without taking the freed-page log as read,
     * so that the next turn reads it again.
     */
    private void catchUpOrLeave(WriterState w) {
        try {
            catchUp(w);
        } catch (RuntimeException | Error e) {
            file.endTurn();
            throw e;
        }
    }

    /**
     * At the start of a turn: if another process wrote since this one's last turn, its commits and
     * free space are loaded, and free pages wait for held revisions that may reach them (see
     * {@link FreeSpace#pendAfterCatchUp}).
     */
    private void catchUp(WriterState w) {
        FreeSpace space = w.space;
        if (registry.published() == publisher.lastAnnouncedWord()) {
            return;
        }
        long durableBefore = publisher.durableRevision();
        FreeSpace.Before before = space.before(publisher.latest().revision);
        file.resync();
        space.reset();
        publisher.resetSlots();
        adoption.adopt(w);
        if (publisher.durableRevision() != durableBefore) {
            // A checkpoint of another process: it may have died before its sync.
            health.sync(file::sync);
        }
        Holders held = holders.collect(this);
        space.pendAfterCatchUp(before, freedLog, freedSeen, held.revisions(), held.count(),
                publisher.latest().revision);
        publisher.announceHead();
    }

    /** Ends the turn; what this process freed in it is accounted for. */
    private void endTurn() {
        freedSeen = freedLog.sequence();
        file.endTurn();
    }
}
