// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.util.concurrent.atomic.AtomicBoolean;

import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.WriteTxn;

/**
 * The table's {@link PresenceFilter}s: the one readers use, and the one being built in the
 * background (at open, when the table outgrew its filter, after expiry deleted entries, or after a
 * commit that did not go through this table, such as an import). Until a filter is ready, every
 * check goes to the tree; nothing waits for a build.
 */
final class PresenceFilters {
    private final HistoryTable table;
    private final Store store;
    /**
     * The filter in use and the one being built, read and replaced together: a commit that read
     * them apart could add its hash to the old filter only, just as a build swapped in the new one.
     */
    private volatile Pair filters = new Pair(null, null);
    private final AtomicBoolean buildRequested = new AtomicBoolean();
    private volatile boolean closed;
    /** True while this table publishes a commit and before its filters cover it. */
    private volatile boolean committing;
    private Thread builder;
    /** After a failed build, when a commit tries again ({@code System.nanoTime()}); 0 if none failed. */
    private volatile long retryAtNanos;
    private static final long RETRY_NANOS = 10_000_000_000L;
    private static final System.Logger LOG = System.getLogger("io.mvbt.history");

    private record Pair(PresenceFilter current, PresenceFilter building) {
    }

    PresenceFilters(HistoryTable table, Store store) {
        this.table = table;
        this.store = store;
    }

    /** True if no entry with {@code hash} exists in {@code view}, a snapshot of {@code revision}. */
    boolean surelyAbsent(byte[] hash, long revision, ReadView view) {
        return surelyAbsent(hash, revision, view, 0);
    }

    /** As above for a write transaction on {@code revision}, whose entries tree had {@code version} then. */
    boolean surelyAbsent(byte[] hash, long revision, long version) {
        return surelyAbsent(hash, revision, null, version);
    }

    private boolean surelyAbsent(byte[] hash, long revision, ReadView view, long version) {
        PresenceFilter f = filters.current;
        if (f == null) {
            return false;
        }
        if (f.answersFor(revision)) {
            return !f.mightContain(hash);
        }
        if (!committing && revision > f.covered) {
            // Commits that did not go through this table (covered is read again after committing, so
            // one of ours that just finished is not mistaken for one). If they left the entries as the
            // filter covers them (another tree, the store's own shrink), it still answers; else it
            // misses hashes and is rebuilt.
            if (f.ready && (view == null ? version : view.treeVersion(table.entries)) == f.coveredVersion) {
                return !f.mightContain(hash);
            }
            rebuild();
        }
        return false;
    }

    /** Records a hash about to be committed by this table (before the commit is published). */
    void add(byte[] hash) {
        Pair p = filters;
        if (p.current != null) {
            p.current.add(hash);
        }
        if (p.building != null) {
            p.building.add(hash);
        }
    }

    /** This table is about to publish a commit. */
    void committing() {
        committing = true;
    }

    /**
     * After this table committed {@code txn} (if {@code done}), which found the entries tree at
     * {@code baseVersion} and left it at {@code version}: its filters now cover its revision.
     */
    void committed(WriteTxn txn, boolean done, long entries, long baseVersion, long version) {
        Pair p = filters;
        if (done) {
            advance(p.current, txn, baseVersion, version);
            advance(p.building, txn, baseVersion, version);
        }
        committing = false;
        PresenceFilter f = p.current;
        long retryAt = retryAtNanos;
        if (f != null && entries > f.capacity || retryAt != 0 && System.nanoTime() - retryAt >= 0) {
            rebuild();
        }
    }

    /** Moves a filter's coverage to {@code txn} if it covered the entries {@code txn} started from. */
    private static void advance(PresenceFilter f, WriteTxn txn, long baseVersion, long version) {
        if (f != null && (f.covered == txn.baseRevision() || f.coveredVersion == baseVersion)) {
            f.coveredVersion = version;
            f.covered = txn.revision();
        }
    }

    /**
     * Starts a build in the background unless one is running. A read-only store gets none: the
     * build holds the writer so that no commit slips past it, and lookups go to the tree.
     */
    void rebuild() {
        if (closed || store.isReadOnly() || !buildRequested.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(this::build, "history-filter-" + table.name());
        t.setDaemon(true);
        synchronized (this) {
            builder = t;
        }
        t.start();
    }

    private void build() {
        Snapshot snapshot = null;
        try {
            PresenceFilter f;
            // Holding the writer, no commit slips between the snapshot and the filter that adds
            // every later commit's hashes.
            try (WriteTxn hold = store.beginWrite()) {
                snapshot = store.beginRead();
                f = new PresenceFilter(snapshot.count(table.entries), snapshot.revision(),
                        snapshot.treeVersion(table.entries));
                filters = new Pair(filters.current, f);
                hold.abort();
            }
            try (HistoryReader reader = new HistoryReader(table, snapshot)) {
                snapshot = null;
                reader.walkHashes(hash -> {
                    f.add(hash);
                    return !closed;
                });
            }
            f.ready = true;
            filters = new Pair(closed ? filters.current : f, null);
            retryAtNanos = 0;
        } catch (RuntimeException | Error e) {
            // The table closed under the build, the store failed, or the bits did not fit in the
            // heap: checks keep using the tree, and a later commit tries again.
            filters = new Pair(filters.current, null);
            retryAtNanos = System.nanoTime() + RETRY_NANOS;
            if (!closed) {
                LOG.log(System.Logger.Level.WARNING, "the presence filter of history table '" + table.name()
                        + "' could not be built; checks go to the tree until a later try succeeds", e);
            }
        } finally {
            if (snapshot != null) {
                // Not handed to the reader: its pages would otherwise stay pinned for good.
                snapshot.close();
            }
            buildRequested.set(false);
        }
    }

    /** Stops a running build and waits for it. */
    void close() {
        closed = true;
        Thread t;
        synchronized (this) {
            t = builder;
        }
        if (t != null) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The filter in use, for stats and tests; null before the first build ends. */
    PresenceFilter current() {
        return filters.current;
    }
}
