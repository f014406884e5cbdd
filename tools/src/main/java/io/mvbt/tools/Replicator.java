// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.agrona.DirectBuffer;

import io.mvbt.revisions.ChangeFeed;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.FeedVisitor;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * Keeps a target store equal to a source store, tree by tree and key by key, through a
 * {@link ChangeFeed} of the source: each batch is applied to the target in one transaction that also
 * records the source revision it brings the target to, in the target's tree {@value #POSITION_TREE};
 * that transaction commits (synced) before the feed's position moves. So after a crash anywhere the
 * target holds the feed's position or the end of the batch that was under way, and the feed hands
 * that batch out again: applying it a second time changes nothing, since every change is a state
 * (this key has this value, or none; this tree exists, or not), never a delta, and a batch's states
 * are those of the revision it ends at.
 *
 * <p>Needs the source's writer to move the feed (open the source with
 * {@link io.mvbt.revisions.StoreOptions#sharedWriters} in every process that writes it, to replicate
 * from another process than the application's).
 */
final class Replicator implements FeedVisitor {
    /** The target's own tree: the source revision it holds and the feed it follows; never replicated. */
    static final String POSITION_TREE = "mvbt.replica";
    private static final byte[] REVISION_KEY = "revision".getBytes(StandardCharsets.UTF_8);
    private static final byte[] FEED_KEY = "feed".getBytes(StandardCharsets.UTF_8);

    private final Store target;
    private final ChangeFeed feed;
    /** The target's transaction of the batch under way, or null. */
    private WriteTxn batch;
    private long changesApplied;

    Replicator(Store source, Store target, String feedName) {
        this.target = target;
        this.feed = source.changeFeed(feedName);
    }

    /** Applies what changed in the source since the last batch; returns the source revision the target now holds. */
    long replicateOnce() {
        try {
            return feed.poll(this);
        } finally {
            if (batch != null) {
                batch.close();
                batch = null;
            }
        }
    }

    /** Keys, values and trees applied so far (again after a restart: a batch applied twice counts twice). */
    long changesApplied() {
        return changesApplied;
    }

    /** The source revision the target records, or {@link ChangeFeed#BEGINNING} if it never took a batch. */
    static long recordedRevision(Store target) {
        try (Snapshot s = target.beginRead()) {
            Tree position = target.tree(POSITION_TREE);
            if (!s.hasTree(position)) {
                return ChangeFeed.BEGINNING;
            }
            byte[] value = s.get(position, REVISION_KEY);
            return value == null ? ChangeFeed.BEGINNING : ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong();
        }
    }

    private WriteTxn batch() {
        if (batch == null) {
            batch = target.beginWrite();
        }
        return batch;
    }

    @Override
    public void treeCreated(String tree) {
        refuseOwnTree(tree);
        batch().createTreeIfAbsent(tree);
        changesApplied++;
    }

    @Override
    public void treeDropped(String tree, long entries) {
        refuseOwnTree(tree);
        batch().dropTree(target.tree(tree));
        changesApplied++;
    }

    @Override
    public void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue) {
        Tree t = target.tree(tree);
        if (newValue == null) {
            batch().delete(t, key);
        } else {
            batch().put(t, key, newValue);
        }
        changesApplied++;
    }

    /**
     * Before the source's position moves to {@code to}: refuses a target that does not hold
     * {@code from} or {@code to} of this feed (a batch applied to anything else would not make it
     * equal), then records {@code to} and commits, synced.
     */
    @Override
    public void reached(long from, long to) {
        refuseForeignTarget(from, to);
        WriteTxn tx = batch();
        Tree position = tx.createTreeIfAbsent(POSITION_TREE);
        tx.put(position, REVISION_KEY, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(to).array());
        tx.put(position, FEED_KEY, feed.name().getBytes(StandardCharsets.UTF_8));
        // Synced before the source lets go of the revision the target could otherwise only restart from.
        tx.commit(Durability.SYNC);
    }

    private void refuseForeignTarget(long from, long to) {
        long recorded = recordedRevision(target);
        String advice = ": it is not this feed's replica (start again with an empty target and a new feed)";
        if (recorded != from && recorded != to) {
            throw new IllegalStateException("the target holds source revision "
                    + (recorded == ChangeFeed.BEGINNING ? "none" : recorded) + ", but feed '" + feed.name()
                    + "' hands out the changes from " + (from == ChangeFeed.BEGINNING ? "the beginning" : from)
                    + " to " + to + advice);
        }
        try (Snapshot s = target.beginRead()) {
            Tree position = target.tree(POSITION_TREE);
            if (recorded == ChangeFeed.BEGINNING && !s.treeNames().isEmpty()) {
                throw new IllegalStateException("the target has trees " + s.treeNames()
                        + " and never took a batch" + advice);
            }
            byte[] followed = s.hasTree(position) ? s.get(position, FEED_KEY) : null;
            if (followed != null && !new String(followed, StandardCharsets.UTF_8).equals(feed.name())) {
                throw new IllegalStateException("the target follows feed '" + new String(followed, StandardCharsets.UTF_8)
                        + "', not '" + feed.name() + "'" + advice);
            }
        }
    }

    private void refuseOwnTree(String tree) {
        if (tree.equals(POSITION_TREE)) {
            throw new IllegalStateException("the source has a tree named '" + POSITION_TREE + "', where a replica"
                    + " keeps the source revision it holds: it cannot be replicated");
        }
    }
}
