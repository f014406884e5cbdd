// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

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
 */
final class WriterPermit {
    private final Semaphore permit = new Semaphore(1);
    private final PageStore pages;
    /** The span of the holder (written by whoever holds the permit). */
    private long span;
    /**
     * The thread that took the permit, or null. Volatile: a permit taken on one thread may go back
     * on another (a transaction committed elsewhere), and the taker must then not see itself here.
     */
    private volatile Thread holder;

    WriterPermit(PageStore pages) {
        this.pages = pages;
    }

    boolean tryAcquire() {
        if (!permit.tryAcquire()) {
            return false;
        }
        taken();
        return true;
    }

    boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
        if (!permit.tryAcquire(timeout, unit)) {
            return false;
        }
        taken();
        return true;
    }

    private void taken() {
        holder = Thread.currentThread();
        span = pages.beginSpan();
    }

    /** Waits up to {@code timeout} for the running write transaction to end; {@code what} names the waiter. */
    void acquire(String what, Duration timeout) {
        refuseReentry(what);
        try {
            if (!tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new WriteTimeoutException(what + " waited " + timeout + " for the write transaction" + heldBy());
            }
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
        if (holder == Thread.currentThread()) {
            throw new IllegalStateException(what + " on thread '" + Thread.currentThread().getName()
                    + "', which holds the store's write transaction already: commit or close that transaction first"
                    + " (one writer at a time, and it does not nest)");
        }
    }

    /** Who holds the permit, for a message: ", held by thread 'x'", or nothing if it went back meanwhile. */
    String heldBy() {
        Thread t = holder;
        return t == null ? "" : "; thread '" + t.getName() + "' holds it";
    }

    void release() {
        holder = null;
        pages.endSpan(span);
        permit.release();
    }
}
