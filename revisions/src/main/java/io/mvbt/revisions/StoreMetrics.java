// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * Live counters of one store for a metrics library to poll ({@link Store#metrics()}): each getter
 * reads the current value and allocates nothing, so a gauge may call it as often as it likes.
 * {@link Store#stats()} gives one consistent picture instead, at the cost of an object and a scan.
 * Page counts are the writer's; read from another thread they may be a commit old.
 */
public final class StoreMetrics {
    private final Store store;

    StoreMetrics(Store store) {
        this.store = store;
    }

    /** The newest committed revision. */
    public long revision() {
        return store.revision();
    }

    /** The newest revision known to survive a power cut (by a checkpoint or the redo log). */
    public long durableRevision() {
        return store.durableForMetrics();
    }

    /** Commits of this store object's writer since the store was opened. */
    public long commits() {
        return store.committer().commits();
    }

    /** Checkpoints completed since the store was opened. */
    public long checkpoints() {
        return store.checkpointCount();
    }

    public long pagesInFile() {
        return store.pages().pageCount();
    }

    public long pagesInUse() {
        return store.space().inUse.cardinality();
    }

    public long pagesFree() {
        return store.space().reusable.cardinality();
    }

    /** Pages freed but maybe visible to an open snapshot or needed by the last durable revision. */
    public long pagesWaitingForReaders() {
        return store.space().pending.pages();
    }

    /** Snapshots open now in every process (checkpoints in progress included). */
    public long openSnapshots() {
        return store.registry().openCount();
    }

    /** Times {@code beginWrite} found another write transaction open and waited. */
    public long writerWaits() {
        return store.writerWaitCount();
    }
}
