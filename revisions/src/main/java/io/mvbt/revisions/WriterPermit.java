// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.mvbt.ClosedException;
import io.mvbt.WriteTimeoutException;
import io.mvbt.pagestore.PageStore;

/**
 * The one permit to write (a write transaction, a sync, a close). While it is held, a span of the
 * page store is open ({@link PageStore#beginSpan}), so a store that evicts pages from memory keeps
 * every page the writer looks up until the permit goes back.
 *
 * <p>The permit remembers the thread that took it: a thread that asks again while it holds it would
 * wait for itself until its timeout, so it is told at once instead, and a waiter that times out is
 * told who holds it.
 *
 * <p>A close {@link #shut}s the permit first: from then on only the close takes it, and whoever
 * waits for it, or asks later, gets {@link ClosedException} at once, not after the close (nor the
 * permit and a turn of the closed store). Taking and giving back the permit is one compare-and-set
 * and one volatile write; the lock and condition are for waiters only (two writers at once).
 *
 * <p>Taking the permit gives the {@link WriterState}: the writer's free space, free map and
 * transaction pages are reached only that way.
 */
final class WriterPermit {
    private static final VarHandle TAKEN;

    static {
        try {
            TAKEN = MethodHandles.lookup().findVarHandle(WriterPermit.class, "taken", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PageStore pages;
    private final WriterState state;
    @SuppressWarnings("unused") // through TAKEN
    private volatile boolean taken;
    /** A close began: nobody but the close takes the permit again. */
    private volatile boolean closing;
    /**
     * Threads waiting on {@link #changed} (written under {@link #lock}). Whoever frees the permit or
     * shuts it writes its own flag, then reads this: with the waiter's write of this before its look
     * at the flags (all volatile), one of the two sees the other, so no wake-up is lost.
     */
    private volatile int waiting;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** The span of the holder (written by whoever holds the permit). */
    private long span;
    /**
     * The thread that took the permit, or null. Volatile: a permit taken on one thread may go back
     * on another (a transaction committed elsewhere), and the taker must then not see itself here.
     */
    private volatile Thread holder;

    WriterPermit(PageStore pages, WriterState state) {
        this.pages = pages;
        this.state = state;
    }

    /** Takes the permit if it is free and no close began; null if not. */
    WriterState tryAcquire() {
        if (closing || !TAKEN.compareAndSet(this, false, true)) {
            return null;
        }
        return taken();
    }

    /**
     * Waits up to {@code timeout} for the permit; null if it stays taken. Throws
     * {@link ClosedException} as soon as a close begins, before or during the wait; {@code what}
     * names the waiter in its message.
     */
    WriterState tryAcquire(String what, long timeout, TimeUnit unit) throws InterruptedException {
        WriterState now = tryAcquire();
        if (now != null) {
            return now;
        }
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            waiting++;
            try {
                while (true) {
                    if (closing) {
                        throw new ClosedException("store " + pages.describe() + " was closed while " + what
                                + " waited for the write transaction");
                    }
                    if (TAKEN.compareAndSet(this, false, true)) {
                        break;
                    }
                    if (nanos <= 0) {
                        return null;
                    }
                    nanos = changed.awaitNanos(nanos);
                }
            } finally {
                waiting--;
            }
        } finally {
            lock.unlock();
        }
        return taken();
    }

    private WriterState taken() {
        holder = Thread.currentThread();
        span = pages.beginSpan();
        return state;
    }

    /**
     * Waits up to {@code timeout} for the running write transaction to end; {@code what} names the
     * waiter. Throws {@link ClosedException} if a close begins first.
     */
    WriterState acquire(String what, Duration timeout) {
        refuseReentry(what);
        try {
            WriterState taken = tryAcquire(what, timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (taken == null) {
                throw new WriteTimeoutException(what + " waited " + timeout + " for the write transaction" + heldBy());
            }
            return taken;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WriteTimeoutException("interrupted while waiting for the write transaction");
        }
    }

    /**
     * Throws {@link IllegalStateException} if the calling thread holds the permit: it would wait for
     * itself. {@code what} names what it asked for.
     */
    void refuseReentry(String what) {
        if (heldByCaller()) {
            throw new IllegalStateException(what + " on thread '" + Thread.currentThread().getName()
                    + "', which holds the store's write transaction already: commit or close that transaction first"
                    + " (one writer at a time, and it does not nest)");
        }
    }

    /** Whether the calling thread took the permit and has not given it back. */
    boolean heldByCaller() {
        return holder == Thread.currentThread();
    }

    /** Who holds the permit, for a message: ", held by thread 'x'", or nothing if it went back meanwhile. */
    String heldBy() {
        Thread t = holder;
        return t == null ? "" : "; thread '" + t.getName() + "' holds it";
    }

    /** Whether a close began ({@link #shut}). */
    boolean closing() {
        return closing;
    }

    /** A close begins: waiters fail now with {@link ClosedException}, and only the close takes the permit. */
    void shut() {
        closing = true;
        wakeWaiters();
    }

    /** Takes the permit for the close, after {@link #shut}; null while another holds it. */
    WriterState tryAcquireForClose() {
        if (!TAKEN.compareAndSet(this, false, true)) {
            return null;
        }
        return taken();
    }

    /**
     * The counts of the writer's pages: exact if the permit is free (taken for the count), else as
     * the running writer's last commit left them (its transaction is changing them).
     */
    WriterState.SpaceCounts counts() {
        if (closing || !TAKEN.compareAndSet(this, false, true)) {
            return state.published();
        }
        try {
            return state.count();
        } finally {
            TAKEN.setVolatile(this, false);
            wakeWaiters();
        }
    }

    /** For tests: the writer's state, looked at while no writer runs. */
    WriterState idleStateForTests() {
        return state;
    }

    void release() {
        holder = null;
        pages.endSpan(span);
        TAKEN.setVolatile(this, false);
        wakeWaiters();
    }

    private void wakeWaiters() {
        if (waiting > 0) {
            lock.lock();
            try {
                // All: a woken waiter that then times out or is interrupted must not swallow the wake-up.
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
