package io.mvbt.revisions;

/**
 * One holder of a revision in the reader registry, as {@link Store#readers()} reports it.
 *
 * @param revision the revision it holds; no page that revision reaches is reused while it is held
 * @param lag commits since that revision (how far behind the newest revision it reads)
 * @param ageMillis how long it has been open
 * @param threadId the thread that opened it
 * @param threadName that thread's name when it opened it
 * @param checkpoint true for a background checkpoint, false for a {@link Snapshot}
 * @param expired true once a {@link SlowReaderPolicy} expired it: its next read throws
 *     {@link SnapshotExpiredException}, and closing it releases the revision
 */
public record ReaderInfo(long revision, long lag, long ageMillis, long threadId, String threadName,
        boolean checkpoint, boolean expired) {
}
