// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.StorageException;

/**
 * What makes a commit durable: its pages alone (a SYNC commit syncs them, a NORMAL one waits for a
 * checkpoint), or, once {@link #logTo} started a {@link RedoLog}, its record in the log, the pages
 * following at a checkpoint, which then lets go of the segments it covers. One per store, shared by
 * the committer, the checkpoints and the store. A failure to write the log fails the store, as a
 * failed fsync does: a record may be in the log, and must not be followed by another of its revision.
 */
final class DurabilityPolicy {
    private final Health health;
    /** The log commits are recorded in; null while durability is the pages' alone. */
    private volatile RedoLog log;
    /**
     * While a redo log is replayed (and if the replay fails, until close): no revision but the
     * replayed ones may be published, since each would take the number of a record still to
     * replay. Shrinks and compaction wait; checkpoints go on (they publish no revision).
     */
    private volatile boolean replaying;

    DurabilityPolicy(Health health) {
        this.health = health;
    }

    /** From now on commits are recorded in {@code redoLog}. */
    void logTo(RedoLog redoLog) {
        this.log = redoLog;
    }

    /** Whether commits are recorded in a redo log. */
    boolean logged() {
        return log != null;
    }

    /** See {@link #replaying}. */
    void replaying(boolean on) {
        this.replaying = on;
    }

    /** Whether a log is being replayed, or its replay failed: only replayed revisions may be published. */
    boolean replaying() {
        return replaying;
    }

    /** The record a new transaction fills for the redo log, or null if commits are not recorded. */
    RedoRecord beginRecord() {
        RedoLog redo = log;
        return redo == null ? null : redo.begin();
    }

    /**
     * Records a commit (syncing the log for SYNC) if it has a record, and returns the durability
     * left for its pages to give: {@code durability} if it has none.
     */
    Durability record(long revision, RedoRecord redo, Durability durability) {
        if (redo == null) {
            return durability;
        }
        try {
            return log.commit(revision, redo, durability);
        } catch (StorageException e) {
            throw health.syncFailed(e, "writing the redo log failed");
        }
    }

    /** A revision that changes nothing but the file's size is published: recorded first, so a failure changes nothing. */
    void unchanged(long revision) {
        RedoLog redo = log;
        if (redo == null) {
            return;
        }
        try {
            redo.unchanged(revision);
        } catch (StorageException e) {
            throw health.syncFailed(e, "writing the redo log failed");
        }
    }

    /** A checkpoint made {@code durable} durable in the pages: the log's segments it covers may go. */
    void checkpointed(long durable) {
        RedoLog redo = log;
        if (redo != null) {
            redo.checkpointed(durable);
        }
    }

    /** Syncs the log ({@link Store#sync()}); false if commits are not recorded, and the pages must be. */
    boolean sync() {
        RedoLog redo = log;
        if (redo == null) {
            return false;
        }
        health.sync(redo::sync, "syncing the redo log failed");
        return true;
    }

    /** The newest durable revision: {@code durablePages}, or what the log's last sync covered, up to {@code latest}. */
    long durable(long latest, long durablePages) {
        RedoLog redo = log;
        // A sync between a commit's record and its publication covers a revision not published yet.
        return redo == null ? durablePages : Math.min(latest, Math.max(durablePages, redo.synced()));
    }

    /** At close: the log's segments go if {@code release} (every commit durable in the pages), else stay for replay. */
    void close(boolean release) {
        RedoLog redo = log;
        if (redo != null) {
            redo.close(release);
        }
    }
}
