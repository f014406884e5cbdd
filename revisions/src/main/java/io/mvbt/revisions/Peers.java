// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The store's view of who else reads or writes its pages, and what that asks of it: where the
 * newest revision comes from, how a snapshot holds one, which revisions readers elsewhere hold,
 * and how the writer takes its turn. One implementation per deployment mode, chosen once by the
 * {@code Store.open} factory that knows the mode:
 *
 * <ul>
 * <li>{@link SolePeers}: the one writer of a file or of memory, and readers in this process or
 * (read-only stores of a file) in others, registered in the lock file;
 * <li>{@link TurnTakingPeers}: writers of several processes taking turns on one file;
 * <li>{@link FollowerPeers}: a read-only store that follows a file's writer;
 * <li>{@link RemoteWriterPeers} and {@link RemoteReaderPeers}: pages on shared storage (Redis),
 * with readers on other hosts.
 * </ul>
 */
interface Peers {
    /** A writer's turn: {@link #close} ends it. For a sole writer it is nothing. */
    interface Turn extends AutoCloseable {
        @Override
        void close();
    }

    /** The turn of a writer that has no one to take turns with. */
    Turn NO_TURN = () -> { };

    /** Whether this store only reads, following a writer elsewhere. */
    default boolean readOnly() {
        return false;
    }

    /** Loads the store's state at open: a writer runs {@code openAsWriter}, a follower reads what its writer published. */
    default void open(Runnable openAsWriter) {
        openAsWriter.run();
    }

    /**
     * The store has opened ({@code created}: as a new store), holding the writer's state {@code w};
     * the mode sets up what it keeps.
     */
    default void opened(WriterState w, boolean created) {
    }

    /**
     * The revision a writer publishes once it has opened, before its first commit, changing
     * nothing but the revision number, so that no commit of its session takes a number that pages
     * of an earlier writer may carry; -1 to go on from {@code newest}.
     */
    default long sessionRevision(long newest) {
        return -1;
    }

    /** The newest committed revision, as this store sees it. */
    Revision newest();

    /** Publishes the newest revision in a registry slot, re-reading until no commit slipped between. */
    Revision hold(int slot);

    /** Releases a registry slot that {@link #hold} filled. */
    void release(int slot);

    /** Adds what readers elsewhere hold (a look collected this process's holders). */
    default void addHeld(Holders held) {
    }

    /** The durable revision moves on from {@code previous}, which readers elsewhere may have read. */
    default void replaced(long previous) {
    }

    /**
     * Holding the writer permit, which gave {@code w}: waits up to {@code nanos} for writers of other
     * processes and catches up with what they committed. {@code what} and {@code timeout} name the wait in the
     * exception if it times out; a close that begins meanwhile ends the wait with
     * {@link io.mvbt.ClosedException}.
     */
    default Turn takeTurn(WriterState w, long nanos, String what, Duration timeout) {
        return NO_TURN;
    }

    /**
     * Holding the writer permit at close: the turn in which the closing checkpoint runs, or null
     * if writers elsewhere keep it past {@code nanos}.
     */
    default Turn closingTurn(WriterState w, long nanos) {
        return NO_TURN;
    }

    /**
     * Makes every commit durable and gives back a large free tail ({@link Store#sync()}): by
     * {@code besideWriter}, a checkpoint beside this process's writer, or where writers take turns,
     * by {@code inTurn}, run holding the writer permit (and the state it gives) in a turn.
     */
    default void sync(Runnable besideWriter, Consumer<WriterState> inTurn) {
        besideWriter.run();
    }

    /** The background checkpointer's round, run as {@link #sync} runs it (or skipped). */
    default void backgroundCheckpoint(Runnable besideWriter, Consumer<WriterState> inTurn) {
        besideWriter.run();
    }

    /** Holding the writer permit at the start of a write transaction: a step of any cleaning due. */
    default void cleanStep(WriterState w) {
    }

    /**
     * At close, after the last checkpoint: a store that deletes freed pages lets go of every page
     * no reader holds any more ({@code releaseFreed}) and deletes what nothing reaches.
     */
    default void closing(WriterState w, Runnable releaseFreed) {
    }
}
