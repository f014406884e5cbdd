// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What only the writer reaches: its free space, its free map and its transaction's pages. The
 * {@link WriterPermit} hands it to whoever takes the permit and to nobody else; a class that works
 * on it (a commit, a checkpoint in the writer's turn, a catch-up with other processes) takes it as
 * an argument from that holder and keeps no reference of its own.
 */
final class WriterState {
    private static final VarHandle SEQUENCE;

    static {
        try {
            SEQUENCE = MethodHandles.lookup().findVarHandle(WriterState.class, "sequence", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final FreeSpace space;
    final FreeMap freeMap;
    final TxnPages txnPages;
    // The counts as the last commit left them, for Store.stats while a writer runs: a sequence lock
    // (odd while the holder writes them), so that a commit publishes them without allocating.
    private long sequence;
    private long inUse;
    private long reusable;
    private long pending;
    private long lastCommitPages;

    WriterState(FreeSpace space, FreeMap freeMap, TxnPages txnPages) {
        this.space = space;
        this.freeMap = freeMap;
        this.txnPages = txnPages;
    }

    /** The pages in use, reusable and waiting for readers, and those the last commit wrote. */
    record SpaceCounts(long inUse, long reusable, long pending, long lastCommitPages) {
    }

    /** Publishes the counts as they are now (holding the permit), for {@link #published}. */
    void publishCounts() {
        long s = sequence;
        SEQUENCE.setOpaque(this, s + 1);
        VarHandle.storeStoreFence();
        inUse = space.inUse.cardinality();
        reusable = space.reusable.cardinality();
        pending = space.pending.pages();
        lastCommitPages = space.lastCommitPages();
        SEQUENCE.setRelease(this, s + 2);
    }

    /** Counts the pages now (holding the permit) and publishes the counts. */
    SpaceCounts count() {
        publishCounts();
        return new SpaceCounts(inUse, reusable, pending, lastCommitPages);
    }

    /** The counts the holder last published: what a reader that cannot take the permit sees. */
    SpaceCounts published() {
        while (true) {
            long before = (long) SEQUENCE.getAcquire(this);
            SpaceCounts c = new SpaceCounts(inUse, reusable, pending, lastCommitPages);
            VarHandle.loadLoadFence();
            if ((before & 1) == 0 && before == (long) SEQUENCE.getOpaque(this)) {
                return c;
            }
            Thread.onSpinWait();
        }
    }
}
