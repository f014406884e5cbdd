// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;

import io.mvbt.SnapshotExpiredException;

/**
 * What a store does about a snapshot that holds an old revision too long: the classic cause of
 * file growth, since no page that revision reaches can be reused. A snapshot is slow once it lags
 * more than {@code maxLag} commits behind the newest revision or has been open longer than
 * {@code maxAge} (either limit 0: not checked). The writer looks when a write transaction begins,
 * by the lag at every one and by the age at most once a second, and hands each slow snapshot once
 * to the handler, on the writer's thread (keep it short).
 *
 * <p>Expiry is cooperative, so that no read ever sees a reused page: an expired snapshot's next
 * read (any get, count or cursor step) throws {@link SnapshotExpiredException}, and its pages are
 * released when it is closed, which try-with-resources does as the exception passes. A snapshot
 * that is never touched again stays open: the log names the thread that opened it.
 *
 * @param maxLag commits a snapshot may lag before it is slow; 0 for no limit
 * @param maxAge how long a snapshot may stay open before it is slow; zero for no limit
 * @param handler decides, per slow snapshot, whether it expires
 */
public record SlowReaderPolicy(long maxLag, Duration maxAge, Handler handler) {
    private static final System.Logger LOG = System.getLogger("io.mvbt.slowreaders");

    /** Decides what happens to one slow snapshot. */
    @FunctionalInterface
    public interface Handler {
        /** Returns true to expire the snapshot, false to keep it. */
        boolean expire(ReaderInfo reader);
    }

    public SlowReaderPolicy {
        Objects.requireNonNull(maxAge, "maxAge");
        Objects.requireNonNull(handler, "handler");
        if (maxLag < 0 || maxAge.isNegative()) {
            throw new IllegalArgumentException("slow-reader limits must not be negative");
        }
    }

    /** No limits: snapshots may hold any revision for any time (the default). */
    public static SlowReaderPolicy none() {
        return new SlowReaderPolicy(0, Duration.ZERO, reader -> false);
    }

    /** Logs each slow snapshot once (System.Logger "io.mvbt.slowreaders", WARNING) and keeps it. */
    public static SlowReaderPolicy log(long maxLag, Duration maxAge) {
        return new SlowReaderPolicy(maxLag, maxAge, reader -> {
            LOG.log(Level.WARNING, describe(reader) + "; it keeps the pages it can see from being reused");
            return false;
        });
    }

    /** Logs each slow snapshot and expires it. */
    public static SlowReaderPolicy expire(long maxLag, Duration maxAge) {
        return new SlowReaderPolicy(maxLag, maxAge, reader -> {
            LOG.log(Level.WARNING, describe(reader) + "; expired: its next read throws");
            return true;
        });
    }

    boolean enabled() {
        return maxLag > 0 || !maxAge.isZero();
    }

    boolean isSlow(long lag, long ageMillis) {
        return (maxLag > 0 && lag > maxLag) || (!maxAge.isZero() && ageMillis > maxAge.toMillis());
    }

    static String describe(ReaderInfo reader) {
        return "snapshot of revision " + reader.revision() + " opened by thread '" + reader.threadName() + "' (id "
                + reader.threadId() + ") is " + reader.lag() + " commits behind and " + reader.ageMillis()
                + " ms old";
    }
}
