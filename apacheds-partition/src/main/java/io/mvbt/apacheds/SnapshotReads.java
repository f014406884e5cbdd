// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * Marks the threads that are reading an mvbt partition on a snapshot of their own, for which the
 * server-wide read lock guards nothing. {@link #serverLock} wraps ApacheDS's lock so that its
 * read side is skipped on such threads and taken everywhere else (other partitions, other code).
 */
final class SnapshotReads {
    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private SnapshotReads() {
    }

    /** Marks this thread until the returned scope closes; scopes nest. */
    static BoundTxn.Scope enter() {
        int[] depth = DEPTH.get();
        depth[0]++;
        return () -> depth[0]--;
    }

    static boolean active() {
        return DEPTH.get()[0] > 0;
    }

    /** {@code lock} with a read side that marked threads skip. */
    static ReadWriteLock serverLock(ReadWriteLock lock) {
        Lock read = lock.readLock();
        Lock skippable = new Lock() {
            @Override
            public void lock() {
                if (!active()) {
                    read.lock();
                }
            }

            @Override
            public void lockInterruptibly() throws InterruptedException {
                if (!active()) {
                    read.lockInterruptibly();
                }
            }

            @Override
            public boolean tryLock() {
                return active() || read.tryLock();
            }

            @Override
            public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
                return active() || read.tryLock(time, unit);
            }

            @Override
            public void unlock() {
                if (!active()) {
                    read.unlock();
                }
            }

            @Override
            public Condition newCondition() {
                throw new UnsupportedOperationException("a read lock has no conditions");
            }
        };
        return new ReadWriteLock() {
            @Override
            public Lock readLock() {
                return skippable;
            }

            @Override
            public Lock writeLock() {
                return lock.writeLock();
            }
        };
    }
}
