// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The concurrent writer of the with-writer phases: adds the next churn entry and deletes the one
 * added {@link #LIVE} adds before, each in a commit of its own, in the same store the searches read,
 * as fast as it goes or at a given rate. None of its entries is in any search's result.
 */
final class ChurnWriter implements AutoCloseable {
    /** Churn entries alive at once once the writer has run a while. */
    static final long LIVE = 100;

    private final DirectoryTarget target;
    private final double rate;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;
    /** Next churn entry to add; carried from one phase's writer to the next. */
    private final AtomicLong next;

    ChurnWriter(DirectoryTarget target, double commitsPerSecond, AtomicLong next) {
        this.target = target;
        this.rate = commitsPerSecond;
        this.next = next;
        this.thread = new Thread(this::run, "churn-writer");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        long start = System.nanoTime();
        try {
            while (!stop.get()) {
                long k = next.getAndIncrement();
                target.add(DirectoryData.churn(k));
                pace(start, commits.incrementAndGet());
                if (k >= LIVE) {
                    target.delete(DirectoryData.churn(k - LIVE).dn());
                    pace(start, commits.incrementAndGet());
                }
            }
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    private void pace(long start, long done) {
        if (rate > 0) {
            long due = start + (long) (done * 1e9 / rate);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    /** Commits so far. */
    long commits() {
        return commits.get();
    }

    /** Stops the writer after its current commit; rethrows what failed it. */
    @Override
    public void close() {
        stop.set(true);
        try {
            thread.join(TimeUnit.MINUTES.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("the writer failed", t);
        }
    }
}
