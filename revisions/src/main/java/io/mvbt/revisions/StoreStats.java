// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * State of a store at one moment.
 *
 * @param revision newest committed revision
 * @param durableRevision newest revision known to survive a power cut
 * @param openSnapshots snapshots open now (including checkpoints in progress)
 * @param oldestSnapshotRevision revision of the oldest open snapshot, or -1
 * @param oldestSnapshotAgeMillis how long the oldest snapshot has been open, or -1
 * @param pagesInFile pages the store holds
 * @param pagesInUse pages the newest revision reaches
 * @param pagesFree pages that may be reused now
 * @param pagesWaitingForReaders pages freed but maybe visible to an open snapshot or needed by the
 *     last durable revision
 * @param lastCommitPages pages the last commit wrote
 * @param writerWaits times {@code beginWrite} found another write transaction open and waited
 * @param metaLockWaits times the writer and a checkpoint met at the meta lock and one waited (readers
 *     take no lock at all: opening a snapshot is one compare-and-set on a free slot)
 * @param checkpoints checkpoints completed since the store was opened
 * @param pagesPrefaulted free pages touched after checkpoints, so that the writer's first store to
 *     each takes no fault ({@link StoreOptions#prefault}), since the store was opened
 */
public record StoreStats(long revision, long durableRevision, long openSnapshots, long oldestSnapshotRevision,
        long oldestSnapshotAgeMillis, int pageSize, long pagesInFile, long pagesInUse, long pagesFree,
        long pagesWaitingForReaders, long lastCommitPages, long writerWaits, long metaLockWaits, long checkpoints,
        long pagesPrefaulted) {
}
