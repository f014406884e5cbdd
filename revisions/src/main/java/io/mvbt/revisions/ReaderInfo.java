// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.SnapshotExpiredException;

/**
 * One holder of a revision in the reader table, as {@link Store#readers()} reports it: a snapshot
 * or checkpoint of this process or of another process that has the store open.
 *
 * @param revision the revision it holds; no page that revision reaches is reused while it is held
 * @param lag commits since that revision (how far behind the newest revision it reads)
 * @param ageMillis how long it has been open
 * @param pid the process that opened it
 * @param threadId the thread that opened it
 * @param threadName that thread's name when it opened it, or null for another process
 * @param checkpoint true for a background checkpoint, false for a {@link Snapshot}
 * @param expired true once a {@link SlowReaderPolicy} expired it: its next read throws
 *     {@link SnapshotExpiredException}, and closing it releases the revision
 * @param stale true if its process is gone: the writer clears such slots (at most a second after
 *     noticing, and at open), {@code mvbt readers --clear-stale} at once
 */
public record ReaderInfo(long revision, long lag, long ageMillis, long pid, long threadId, String threadName,
        boolean checkpoint, boolean expired, boolean stale) {
}
