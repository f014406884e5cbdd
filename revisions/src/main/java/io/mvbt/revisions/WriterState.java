// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * What only the writer reaches: its free space, its free map and its transaction's pages. The
 * {@link WriterPermit} hands it to whoever takes the permit and to nobody else; a class that works
 * on it (a commit, a checkpoint in the writer's turn, a catch-up with other processes) takes it as
 * an argument from that holder and keeps no reference of its own.
 */
final class WriterState {
    final FreeSpace space;
    final FreeMap freeMap;
    final TxnPages txnPages;
    /** The counts as the last commit left them, for {@link Store#stats} while a writer runs. */
    private volatile SpaceCounts published = new SpaceCounts(0, 0, 0, 0);

    WriterState(FreeSpace space, FreeMap freeMap, TxnPages txnPages) {
        this.space = space;
        this.freeMap = freeMap;
        this.txnPages = txnPages;
    }

    /** The pages in use, reusable and waiting for readers, and those the last commit wrote. */
    record SpaceCounts(long inUse, long reusable, long pending, long lastCommitPages) {
    }

    /** Counts the pages now (holding the permit) and publishes the counts for {@link #published}. */
    SpaceCounts count() {
        SpaceCounts c = new SpaceCounts(space.inUse.cardinality(), space.reusable.cardinality(), space.pending.pages(),
                space.lastCommitPages());
        published = c;
        return c;
    }

    /** The counts the holder last published: what a reader that cannot take the permit sees. */
    SpaceCounts published() {
        return published;
    }
}
