// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.function.Supplier;

import io.mvbt.pagestore.PageStore;

/**
 * Compaction at rest (a close, or {@link Store#compact()}). Pages in use end up spread over the
 * file (a page is reused wherever it is free), so the free tail that the closing shrink gives back
 * is short. When moving them pays (an eighth of the file and 1 MiB could go), one commit moves the
 * pages only the newest revision reaches that lie at or above a limit down into the lowest free
 * pages; the shrink then ends the file at its last page still in use.
 *
 * <p>Pages an older held revision reaches stay where they are: those of a named revision (a change
 * feed's or a backup chain's, kept for good) and of a snapshot, here or in another process. Which
 * they are needs no per-page bookkeeping: a page lives over one run of revisions, from the one that
 * wrote it until it is freed, so a page the newest revision reaches is shared with the newest held
 * revision below it, K, exactly when it was written at or before K (and a page is never newer than
 * the page above it, so a shared subtree is passed over whole). Copying a shared page would free
 * nothing, since K keeps the original, and would add a page in use. Pages freed earlier that a held
 * revision still reaches (pending) stay too, so the file ends at the last of these, or at the limit.
 *
 * <p>The limit is the lowest page below which the free pages hold every page to move above it and
 * every page the commit may copy on the way without moving it (the branch pages among those it may
 * move, and the free map). A compaction is one ordinary commit, made durable by the checkpoint that
 * follows: a crash leaves the store before or after it, and a named revision reads the same pages
 * either way.
 */
final class Compaction {
    /** The least a compaction must give back; tests lower it so that their small stores compact too. */
    static long minimumGainBytes = 1L << 20;

    private Compaction() {
    }

    /** Whether the pages in use and those held leave enough free pages to be worth a look (no tree is read). */
    static boolean mayPay(PageStore pages, FreeSpace space) {
        long kept = PageStore.META_SLOTS + space.inUse.cardinality() + space.pending.pages();
        return pays(pages.pageCount(), kept, pages.pageSize());
    }

    /**
     * Moves the pages only the newest revision reaches down if that pays, holding the writer permit
     * in its turn after a checkpoint: at close, or {@link Store#compact()}.
     */
    static void atRest(Checkpoints checkpoints, PageStore pages, WriterState w, NamedRevisions named,
            Supplier<WriteTxn> begin) {
        if (!checkpoints.mayMovePages()) {
            return;
        }
        FreeSpace space = w.space;
        checkpoints.releaseFreed(w);
        if (!mayPay(pages, space)) {
            return;
        }
        // Every page is written back by now, so the hot ones (reused first, wherever they lie) are
        // forgotten: the moved pages take the lowest free ones.
        space.checkpointed();
        boolean committed;
        try (WriteTxn tx = begin.get()) {
            long newest = tx.revision() - 1;
            // A name on the newest revision itself shares every page; a reader of it does not count,
            // as it closes in time (its pages wait for it, as the old copies of the moved ones will).
            long keepThrough = named.isNamed(newest) ? newest : checkpoints.newestHeldBelow(newest);
            committed = run(tx, pages, space, keepThrough);
        }
        if (committed) {
            checkpoints.checkpointAll();
            checkpoints.releaseFreed(w);
        }
    }

    /**
     * Moves the pages written after {@code keepThrough} down and commits, if it pays; returns
     * whether it committed.
     */
    static boolean run(WriteTxn tx, PageStore pages, FreeSpace space, long keepThrough) {
        PageSet movable = new PageSet();
        long copied = tx.freeDetachedAndFindMovable(keepThrough, movable)
                + pages.pageCount() / (8L * pages.pageSize() - 256) + 64;
        long pageCount = pages.pageCount();
        long limit = pages.roundUpToGrowthUnit(limit(space, movable, copied, pageCount));
        long end = pages.roundUpToGrowthUnit(Math.max(limit, endOfKept(space, movable, pageCount)));
        if (movable.nextSetBit(limit) < 0 || !pays(pageCount, end, pages.pageSize())) {
            return false;
        }
        tx.relocate(limit, keepThrough);
        tx.commit(Durability.NORMAL);
        return true;
    }

    /**
     * The lowest page below which the free pages outnumber the movable pages at or above it by
     * {@code copied}: every allocation of the move then lands below it.
     */
    private static long limit(FreeSpace space, PageSet movable, long copied, long pageCount) {
        long above = movable.cardinality();
        long free = 0;
        long p = 0;
        // Whole words while the next one still leaves too few free pages below it ...
        while (p < pageCount) {
            long freeNext = free + Long.bitCount(space.reusable.word(p));
            long aboveNext = above - Long.bitCount(movable.word(p));
            if (freeNext >= aboveNext + copied) {
                break;
            }
            free = freeNext;
            above = aboveNext;
            p += 64;
        }
        // ... then page by page within it.
        while (p < pageCount && free < above + copied) {
            free += space.reusable.get(p) ? 1 : 0;
            above -= movable.get(p) ? 1 : 0;
            p++;
        }
        return Math.min(p, pageCount);
    }

    /** One past the last page that stays where it is: in use and not movable, or held (pending). */
    private static long endOfKept(FreeSpace space, PageSet movable, long pageCount) {
        long[] end = {PageStore.META_SLOTS};
        space.pending.forEach((pageNo, count) -> end[0] = Math.max(end[0], pageNo + count));
        for (long p = (pageCount - 1) & ~63L; p >= 0 && p + 64 > end[0]; p -= 64) {
            long kept = space.inUse.word(p) & ~movable.word(p);
            if (kept != 0) {
                return Math.max(end[0], p + 64 - Long.numberOfLeadingZeros(kept));
            }
        }
        return end[0];
    }

    private static boolean pays(long pageCount, long kept, int pageSize) {
        long gain = pageCount - kept;
        return gain >= pageCount / 8 && gain > 0 && gain * pageSize >= minimumGainBytes;
    }
}
