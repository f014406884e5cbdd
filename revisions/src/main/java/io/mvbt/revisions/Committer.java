// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.StorageException;
import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.PageStore;

/**
 * What a write transaction's commit and abort do below the trees, in order: write the pages built
 * away from storage, flush the free map if due, publish the revision as its durability asks, and
 * let go of the pages no holder reaches any more. Handed to each
 * {@link WriteTxn}, which calls it with the {@link WriterState} its permit gave and nothing above it.
 */
final class Committer {
    /** Commits since the store opened; written by the one writer. */
    private volatile long commits;
    /** Commits after a flush from which a quarter-full set of flips is flushed ({@link #freeMapFlushDue}). */
    static final int FLIP_SETTLE_COMMITS = 64;

    private final PageStore pages;
    private final Checkpoints checkpoints;
    private final Publisher publisher;
    private final Holders holders;
    private final Peers peers;
    private final Health health;
    private final Adoption adoption;
    /** Where the writer's pages live until they are durable. */
    private final PagePath path;
    /** Records commits in a redo log, or leaves durability to the pages. */
    private final DurabilityPolicy policy;
    /** Commits since the free map was last flushed. */
    private long commitsSinceFlush;

    Committer(PageStore pages, Checkpoints checkpoints, Publisher publisher, Holders holders, Peers peers, Health health,
            Adoption adoption, PagePath path, DurabilityPolicy policy) {
        this.pages = pages;
        this.checkpoints = checkpoints;
        this.publisher = publisher;
        this.holders = holders;
        this.peers = peers;
        this.health = health;
        this.adoption = adoption;
        this.path = path;
        this.policy = policy;
    }

    /** The record a new transaction fills for the redo log, or null if commits are not recorded. */
    RedoRecord beginRecord() {
        return policy.beginRecord();
    }

    /**
     * Publishes revision {@code revision} with these roots, durable as {@code durability} says:
     * with a redo log, by its record ({@code redo}), the pages following at a checkpoint.
     */
    void commit(WriterState w, long revision, TreeRoot catalog, FreshRoots fresh, TreeRoot[] roots, Durability durability,
            RedoRecord redo) {
        StoreEvents.Commit event = new StoreEvents.Commit();
        event.begin();
        health.checkWritable(pages.describe());
        FreeSpace space = w.space;
        w.txnPages.writeBuilt();
        flushFreeMapIfDue(w);
        space.reportWritten();
        Durability pagesDurability = policy.record(revision, redo, durability);
        try {
            checkpoints.publishCommit(w, revision, durable -> revisionOf(w.freeMap, revision, durable, catalog, fresh, roots),
                    pagesDurability);
        } catch (RuntimeException | Error e) {
            if (redo != null) {
                // The record of this revision is in the log: no other commit may take its number.
                health.failed(e);
            }
            throw e;
        }
        long written = space.takePagesWritten();
        checkpoints.written(written, pagesDurability);
        releaseHolders(space, revision);
        w.publishCounts();
        commits++;
        event.end();
        if (event.shouldCommit()) {
            event.store = pages.describe();
            event.revision = revision;
            event.durability = durability.name();
            event.pages = space.lastCommitPages();
            event.logged = redo != null;
            event.commit();
        }
    }

    /** Commits since the store opened (read by {@link StoreMetrics} from any thread). */
    long commits() {
        return commits;
    }

    /** Throws away what an aborted transaction took: its pages, and a free map it flushed. */
    void abort(WriterState w) {
        w.space.abort();
        w.freeMap.relocate(-1, -1);
        Revision newest = publisher.latest();
        w.freeMap.set(newest.freeMapRoot, newest.freeMapRevision, newest.freeMapHeight);
    }

    /**
     * Has this commit's free map flush move the map's pages numbered {@code limit} or higher and
     * written after {@code keepThrough}.
     */
    void relocateFreeMap(WriterState w, long limit, long keepThrough) {
        w.freeMap.relocate(limit, keepThrough);
    }

    /** See {@link Health#writeFailed}. */
    RuntimeException writeFailed(StorageException e) {
        return health.writeFailed(e);
    }

    private void flushFreeMapIfDue(WriterState w) {
        FreeSpace space = w.space;
        FreeMap freeMap = w.freeMap;
        if (freeMapFlushDue(space, freeMap)) {
            // Reserve first: once the flush starts, nothing may fail before the meta is written.
            space.reserve(freeMap.flushBound(space));
            space.flushing();
            freeMap.flush(w.txnPages, space);
            commitsSinceFlush = 0;
        }
    }

    /**
     * Whether this commit writes the flips into the free map. Every meta lists them, so each commit
     * pays for those it carries: flush when they outgrow the meta, and also when they pass a
     * quarter of that {@value #FLIP_SETTLE_COMMITS} or more commits after the last flush. A set of
     * flips that stops growing just short of the meta's capacity (pages a tree grew by, then kept)
     * would otherwise be written by every commit, a fifth of a one-key commit's cost.
     */
    private boolean freeMapFlushDue(FreeSpace space, FreeMap freeMap) {
        int flips = space.flips.size();
        int capacity = MetaPage.flipCapacity(pages.pageSize());
        commitsSinceFlush++;
        return freeMap.relocating() || flips > capacity || flips > capacity / 4 && commitsSinceFlush >= FLIP_SETTLE_COMMITS;
    }

    private Revision revisionOf(FreeMap freeMap, long revision, long durable, TreeRoot catalog, FreshRoots fresh, TreeRoot[] roots) {
        return new Revision(revision, durable, catalog.copy(), fresh, pages.pageCount(), System.currentTimeMillis(),
                freeMap.root, freeMap.rootRevision, freeMap.height, roots).sealedThrough(adoption.bound(durable));
    }

    /**
     * Pages the published revision freed wait for the holders that can reach them; others are
     * reusable; so are the places the path held the writer's pages in.
     */
    private void releaseHolders(FreeSpace space, long revision) {
        Holders held = holders.collect(peers);
        space.published(revision, held.revisions(), held.count(), held.allKnown());
        path.published(publisher.durableRevision(), revision, held.oldestReader());
    }
}
