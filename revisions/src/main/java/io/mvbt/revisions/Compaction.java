// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.function.Supplier;

import io.mvbt.pagestore.PageStore;

/**
 * Compaction at close. Pages in use end up spread over the file (a page is reused wherever it is
 * free), so the free tail that the closing shrink gives back is short. When moving them pays (an
 * eighth of the file and 1 MiB could go), one commit moves every page above what the store needs
 * down into the lowest free pages; the shrink then ends the file at its last used page. The limit
 * leaves room for what the commit copies on the way without moving (every branch page at most,
 * and the free map), so all moved pages land below it.
 */
final class Compaction {
    /** The least a compaction must give back; tests lower it so that their small stores compact too. */
    static long minimumGainBytes = 1L << 20;

    private Compaction() {
    }

    /** Whether the pages in use leave enough free pages to be worth a look (no tree is read). */
    static boolean mayPay(PageStore pages, FreeSpace space) {
        long pageCount = pages.pageCount();
        return pays(pageCount, PageStore.META_SLOTS + space.inUse.cardinality(), pages.pageSize());
    }

    /**
     * Moves the pages in use down if that pays, holding the writer permit in its turn after a
     * checkpoint: at close, or {@link Store#compact()}. Only when no reader (here or elsewhere)
     * waits for a freed page: a reader would pin the moved pages where they are.
     */
    static void atRest(Checkpoints checkpoints, PageStore pages, WriterState w, Supplier<WriteTxn> begin) {
        if (!checkpoints.mayMovePages()) {
            return;
        }
        FreeSpace space = w.space;
        checkpoints.releaseFreed(w);
        if (!space.pending.isEmpty() || !mayPay(pages, space)) {
            return;
        }
        // Every page is written back by now, so the hot ones (reused first, wherever they lie) are
        // forgotten: the moved pages take the lowest free ones.
        space.checkpointed();
        boolean committed;
        try (WriteTxn tx = begin.get()) {
            committed = run(tx, pages, space);
        }
        if (committed) {
            checkpoints.checkpointAll();
            checkpoints.releaseFreed(w);
        }
    }

    /** Moves the pages down and commits, if it pays; returns whether it committed. */
    static boolean run(WriteTxn tx, PageStore pages, FreeSpace space) {
        long copied = tx.freeDetachedAndCountBranches() + pages.pageCount() / (8L * pages.pageSize() - 256) + 64;
        long limit = pages.roundUpToGrowthUnit(PageStore.META_SLOTS + space.inUse.cardinality() + copied);
        if (!pays(pages.pageCount(), limit, pages.pageSize())) {
            return false;
        }
        tx.relocate(limit);
        tx.commit(Durability.NORMAL);
        return true;
    }

    private static boolean pays(long pageCount, long limit, int pageSize) {
        long gain = pageCount - limit;
        return gain >= pageCount / 8 && gain > 0 && gain * pageSize >= minimumGainBytes;
    }
}
