// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.util.function.Supplier;

import io.mvbt.StorageException;

/**
 * Rides through a failover: runs an action again while it fails because a Redis node is away
 * ({@link RedisUnavailableException}), until {@link RedisStoreOptions#failoverWait} has passed,
 * learning the cluster's masters anew between tries (a failover promotes a replica within the
 * cluster's node timeout). Only for actions that may be repeated: writes of pages never written
 * with other contents, deletes, reads, and scripts that check the lease or a reader's own field.
 */
final class FailoverWait {
    private static final long FIRST_PAUSE_MILLIS = 25;
    /** Bounds how long after a failover ends an action notices: a try is a refused connection or a CLUSTERDOWN. */
    private static final long LONGEST_PAUSE_MILLIS = 200;

    private final RedisNodes nodes;
    private final long waitNanos;

    FailoverWait(RedisNodes nodes, long waitNanos) {
        this.nodes = nodes;
        this.waitNanos = waitNanos;
    }

    /** How long an action keeps trying. */
    long waitNanos() {
        return waitNanos;
    }

    /**
     * {@code action}'s result, tried again while a node is away; {@code beforeRetry} runs before
     * each new try and may throw to stop (a writer whose lease is gone, a store closed).
     */
    <T> T call(Supplier<T> action, Runnable beforeRetry) {
        long start = System.nanoTime();
        long pause = FIRST_PAUSE_MILLIS;
        while (true) {
            try {
                return action.get();
            } catch (RedisUnavailableException e) {
                long waited = System.nanoTime() - start;
                if (waitNanos == 0) {
                    throw e;
                }
                if (waited >= waitNanos) {
                    throw new RedisUnavailableException("gave up after " + waited / 1_000_000 + " ms: " + e.getMessage(),
                            e.node(), e);
                }
                try {
                    beforeRetry.run();
                } catch (RuntimeException stop) {
                    // A lease gone while the node was away: say both.
                    stop.addSuppressed(e);
                    throw stop;
                }
                sleep(Math.min(pause, Math.max(1, (waitNanos - waited) / 1_000_000)));
                pause = Math.min(pause * 2, LONGEST_PAUSE_MILLIS);
                nodes.refresh();
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException("interrupted while waiting for a Redis node to come back");
        }
    }
}
