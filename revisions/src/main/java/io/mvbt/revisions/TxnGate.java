// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Who may run a write transaction's next operation: its owner, or a {@link Store#close} that takes
 * the transaction away. Every operation of the transaction (reads through it and its cursors
 * included) runs between {@link #enter} and {@link #exit}; a close {@link #revoke}s the gate, which
 * waits for the operation running in the owner's thread to end and shuts the owner out for good.
 * Without it a put running at that moment could write pages into the file after the close has
 * released the store lock, and so into a store another process has opened for writing since, or
 * change the writer's state while the close aborts and checkpoints with it.
 *
 * <p>One compare-and-set per operation, on a field of this transaction only: readers of snapshots
 * never touch it. Operations nest (a method calling another counts once): the depth is the owner's.
 */
final class TxnGate {
    private static final int IDLE = 0;
    private static final int BUSY = 1;
    /** The transaction committed or aborted. */
    private static final int ENDED = 2;
    /** A close took the transaction: it was aborted and no operation runs again. */
    private static final int REVOKED = 3;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TxnGate.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through STATE
    private volatile int state = IDLE;
    /** Operations running in the owner's thread, nested (written by the owner only). */
    private int depth;
    /**
     * The thread running the operation, or null between operations: a close called by that very
     * thread (from code the operation calls) must not wait for the operation to end. A plain field,
     * read racily by a closer: a thread that is not the runner reads null or another thread here,
     * never itself, since its own last write of it (at its last {@link #exit}) was null.
     */
    private Thread runner;

    /** Why an operation may not run now; null if it may. */
    enum Refusal { ENDED, REVOKED }

    /** Begins an operation; returns null, or why it may not run (then nothing is to be exited). */
    Refusal enter() {
        if (depth > 0) {
            depth++;
            return null;
        }
        if (STATE.compareAndSet(this, IDLE, BUSY)) {
            depth = 1;
            runner = Thread.currentThread();
            return null;
        }
        return (int) STATE.getVolatile(this) == REVOKED ? Refusal.REVOKED : Refusal.ENDED;
    }

    /** Ends an operation begun by {@link #enter}; {@code ended} if the transaction committed or aborted in it. */
    void exit(boolean ended) {
        if (--depth == 0) {
            runner = null;
            STATE.setRelease(this, ended ? ENDED : IDLE);
        }
    }

    /** Whether the calling thread is inside an operation of the transaction. */
    boolean runsInCaller() {
        return runner == Thread.currentThread() && (int) STATE.getVolatile(this) == BUSY;
    }

    /** Whether a close took the transaction. */
    boolean revoked() {
        return (int) STATE.getVolatile(this) == REVOKED;
    }

    /**
     * Takes the transaction for a close: waits for the owner's running operation to end, then shuts
     * the owner out. Returns false if the transaction ended (committed or aborted) first.
     */
    boolean revoke() {
        for (int spins = 0;; spins++) {
            int now = (int) STATE.getVolatile(this);
            if (now == ENDED || now == REVOKED) {
                return false;
            }
            if (now == IDLE && STATE.compareAndSet(this, IDLE, REVOKED)) {
                return true;
            }
            // An operation runs: a put takes microseconds, a commit's sync milliseconds.
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(100_000);
            }
        }
    }
}
