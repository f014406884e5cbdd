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
 */
final class WriterPermit {
    private final Semaphore permit = new Semaphore(1);
    private final PageStore pages;
    /** The span of the holder (written by whoever holds the permit). */
    private long span;

    WriterPermit(PageStore pages) {
        this.pages = pages;
    }

    boolean tryAcquire() {
        if (!permit.tryAcquire()) {
            return false;
        }
        span = pages.beginSpan();
        return true;
    }

    boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
        if (!permit.tryAcquire(timeout, unit)) {
            return false;
        }
        span = pages.beginSpan();
        return true;
    }

    /** Waits up to {@code timeout} for the running write transaction to end; {@code what} names the waiter. */
    void acquire(String what, Duration timeout) {
        try {
            if (!tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new WriteTimeoutException(what + " waited " + timeout + " for the write transaction");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WriteTimeoutException("interrupted while waiting for the write transaction");
        }
    }

    void release() {
        pages.endSpan(span);
        permit.release();
    }
}
