// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import org.agrona.collections.LongArrayList;

import io.mvbt.StorageException;
import io.mvbt.pagestore.PageStore;

/**
 * Which pages are in use, which may be reused, and which wait for readers. O(1) amortized per page,
 * nothing that grows with the number of revisions nobody reads.
 *
 * <ul>
 * <li>{@code inUse}: pages the newest revision reaches, plus pages the running transaction
 * allocated, minus pages it freed. This is what the store persists (the free map plus a short list
 * of {@code flips} in the meta page), so a reopened store knows its free pages without a scan.
 * <li>{@code reusable}: pages that may be allocated now.
 * <li>{@link PendingPages}: pages freed but perhaps still visible to a held revision.
 * </ul>
 * Every page below the page count is exactly one of: in use, reusable, pending, or (in a store
 * that never reuses page numbers) discarded.
 */
final class FreeSpace {
    private final PageStore store;
    final PageSet inUse = new PageSet();
    final PageSet reusable = new PageSet();
    final PendingPages pending = new PendingPages();
    /** Pages given up for good (a store that never reuses page numbers); empty for one that does. */
    final PageSet discarded = new PageSet();
    /** Pages whose in-use bit differs from the persisted free map. */
    final FlipSet flips = new FlipSet();
    /**
     * Once the running transaction has flushed the free map ({@link #flushedFreeMap}): its flips
     * against the free map of the last revision, which are the flips again if it aborts. One set,
     * reused: a copy would allocate a bitmap as large as the store's at every flush.
     */
    private final FlipSet flipsBeforeFlush = new FlipSet();
    private boolean flushedFreeMap;

    /** Runs the running transaction allocated: page, count. */
    private final LongArrayList allocated = new LongArrayList();
    /** Runs the running transaction freed that an earlier revision wrote: page, count, written. */
    private final LongArrayList freed = new LongArrayList();
    private long transaction = -1;
    /** Lowest page that may be reusable: every reusable page is at or above it. */
    private long hint = PageStore.META_SLOTS;
    /**
     * Single pages freed since the last checkpoint, reused first (last in, first out). They were
     * written since the checkpoint, so for a mapped file they are still dirty and mapped writable:
     * a store to a page that writeback has cleaned costs a write fault, to a dirty one nothing. A
     * batch that rewrites a thousand leaves frees a thousand such pages, hence the size; a
     * checkpoint cleans them all, and {@link #checkpointed} forgets them.
     */
    private long[] hot = new long[1024];
    private int hotTop;
    private int hotSize;
    private static final int MAX_HOT = 1 << 20;
    /** Pages allocated since the last checkpoint: the ones it cleaned, which the next window rewrites. */
    private final PageSet dirtied = new PageSet();
    private long dirtiedCount;
    /** Pages allocated between the last two checkpoints. */
    private long lastWindowPages;
    /** Told of each page allocated for the first time since the last checkpoint, or null. */
    private Prefaulter prefaulter;
    private final PendingPages.Sink releaseSink = this::release;
    private long pagesWritten;
    /** Pages the running transaction allocated (and so wrote). */
    private long transactionPages;
    /** Pages the last committed transaction wrote. */
    private long lastCommitPages;
    /** Where freed runs are told to writers of other processes (writers that take turns), or null. */
    private FreedLog freedLog;


    /** False for a store that never writes a page number twice: freed pages are discarded, not reused. */
    private final boolean reuse;

    /** Where freed pages go: discarded, if the store never writes a page number twice. */
    private final Writeback writeback;

    FreeSpace(PageStore store, Writeback writeback) {
        this.store = store;
        this.writeback = writeback;
        this.reuse = writeback.reusesPages();
    }

    long pageCount() {
        return store.pageCount();
    }

    /** Starts tracking a transaction that writes at {@code revision}. */
    void begin(long revision) {
        transaction = revision;
        allocated.clear();
        freed.clear();
    }

    long allocate(int pages) {
        long pageNo = pages == 1 ? popHot() : -1;
        boolean lowest = pageNo < 0;
        if (lowest && pages > 1 && !reuse) {
            // A store that never reuses pages gives every run memory of its own.
            pageNo = appendRun(pages);
        } else if (lowest) {
            pageNo = pages == 1 ? reusable.nextSetBit(hint)
                    : reusable.findRun(pages, hint, store.pageCount(), store::runEnd);
        }
        if (pageNo < 0 || pageNo + pages > store.pageCount()) {
            pageNo = grow(pages);
        }
        for (long p = pageNo; p < pageNo + pages; p++) {
            reusable.clear(p);
            setInUse(p, true);
            if (dirtied.set(p)) {
                dirtiedCount++;
                if (prefaulter != null) {
                    prefaulter.used(dirtiedCount);
                }
            }
        }
        if (pages == 1 && lowest) {
            // Nothing below a page found from the hint was reusable.
            hint = pageNo + 1;
        }
        allocated.addLong(pageNo);
        allocated.addLong(pages);
        transactionPages += pages;
        if (lowest) {
            // A page from the cold pool: newly dirty since the last checkpoint, what checkpoints pace by.
            pagesWritten += pages;
        }
        return pageNo;
    }

    private long popHot() {
        while (hotSize > 0) {
            hotTop = (hotTop - 1) & (hot.length - 1);
            hotSize--;
            long pageNo = hot[hotTop];
            if (reusable.get(pageNo)) {
                return pageNo;
            }
        }
        return -1;
    }

    private void pushHot(long pageNo) {
        if (hotSize == hot.length && hot.length < MAX_HOT) {
            // Unroll the ring into a larger one, oldest first.
            long[] larger = new long[hot.length * 2];
            for (int i = 0; i < hotSize; i++) {
                larger[i] = hot[(hotTop + i) & (hot.length - 1)];
            }
            hot = larger;
            hotTop = hotSize;
        }
        hot[hotTop] = pageNo;
        hotTop = (hotTop + 1) & (hot.length - 1);
        hotSize = Math.min(hotSize + 1, hot.length);
    }

    /** Pages in the hot ring, some perhaps taken since by other means. */
    int hotPages() {
        return hotSize;
    }

    /** A checkpoint wrote every page back: none is still dirty, so the hot pages are forgotten. */
    void checkpointed() {
        hotSize = 0;
        lastWindowPages = dirtiedCount;
        dirtied.clearAll();
        dirtiedCount = 0;
    }

    /** Tells {@code p} how many of its pages the writer has taken since the last checkpoint. */
    void reportUseTo(Prefaulter p) {
        this.prefaulter = p;
    }

    /** Pages allocated between the last two checkpoints, an estimate of what the next window needs. */
    long lastWindowPages() {
        return lastWindowPages;
    }

    /**
     * The single pages that allocations will take next, in that order, as far as {@code into} holds
     * them (fewer if fewer are free): the hot pages, newest first, then the others upwards from the
     * hint. Returns how many were written.
     */
    int upcoming(long[] into) {
        PageSet listed = new PageSet();
        int n = 0;
        for (int i = 1; i <= hotSize && n < into.length; i++) {
            long pageNo = hot[(hotTop - i) & (hot.length - 1)];
            if (reusable.get(pageNo) && listed.set(pageNo)) {
                into[n++] = pageNo;
            }
        }
        for (long p = reusable.nextSetBit(hint); p >= 0 && n < into.length; p = reusable.nextSetBit(p + 1)) {
            if (!listed.get(p)) {
                into[n++] = p;
            }
        }
        return n;
    }

    /**
     * Pages a growth adds at least: a 32nd of the store (at least 1 MiB, at most 64 MiB). Each
     * growth maps its pages anew, and the kernel allows a process some 65,000 mappings: growing
     * by what was missing, a MiB at a time, would run out of them near 64 GiB. A 32nd keeps a
     * terabyte within some 16,000 mappings and the file within 3% of what it needs.
     */
    private long growthStep() {
        long bytes = store.pageCount() * (long) store.pageSize();
        return Math.min(Math.max(bytes / 32, 1L << 20), 64L << 20) / store.pageSize();
    }

    /** Extends the store so that a run of {@code pages} fits at its end within one memory range. */
    private long grow(int pages) {
        long count = store.pageCount();
        // The free tail of the store may start the run.
        long start = count;
        while (start > PageStore.META_SLOTS && reusable.get(start - 1)) {
            start--;
        }
        extendTo(count + growthStep(), start + pages);
        if (start + pages <= store.runEnd(start)) {
            return start;
        }
        // The run would cross from one memory range into the next: give it a range of its own.
        return appendRun(pages);
    }

    /** Grows the store by a run in one memory range of its own; pages skipped before it are reusable. */
    private long appendRun(int pages) {
        long before = store.pageCount();
        long run = store.appendRun(pages);
        for (long p = before; p < store.pageCount(); p++) {
            reusable.set(p);
        }
        return run;
    }

    /**
     * Grows the store to {@code wanted} pages, or, if that fails (a disk nearly full), to
     * {@code needed}, all that this growth cannot do without.
     */
    private void extendTo(long wanted, long needed) {
        if (wanted <= needed) {
            extendTo(needed);
            return;
        }
        try {
            extendTo(wanted);
        } catch (StorageException e) {
            extendTo(needed);
        }
    }

    /** Extends the store; every page it gains is reusable, and is touched ahead of the writer. */
    private void extendTo(long newCount) {
        long count = store.pageCount();
        store.extend(newCount);
        for (long p = count; p < store.pageCount(); p++) {
            reusable.set(p);
        }
        if (prefaulter != null && store.pageCount() > count) {
            prefaulter.grown(count, store.pageCount());
        }
    }

    /** Calls {@code sink} with each run the running transaction allocated (some perhaps freed since). */
    void forEachAllocated(PendingPages.Sink sink) {
        for (int i = 0; i < allocated.size(); i += 2) {
            sink.release(allocated.getLong(i), (int) allocated.getLong(i + 1));
        }
    }

    /** Frees a run; pages of the running transaction are reusable at once. */
    void free(long pageNo, long written, int pages) {
        for (long p = pageNo; p < pageNo + pages; p++) {
            setInUse(p, false);
        }
        if (written == transaction) {
            release(pageNo, pages);
        } else {
            freed.addLong(pageNo);
            freed.addLong(pages);
            freed.addLong(written);
        }
    }

    /** Gives back everything the running transaction allocated and takes back what it freed. */
    void abort() {
        if (flushedFreeMap) {
            flips.copyFrom(flipsBeforeFlush);
        }
        for (int i = 0; i < freed.size(); i += 3) {
            long pageNo = freed.getLong(i);
            long pages = freed.getLong(i + 1);
            for (long p = pageNo; p < pageNo + pages; p++) {
                setInUse(p, true);
            }
        }
        for (int i = 0; i < allocated.size(); i += 2) {
            long pageNo = allocated.getLong(i);
            long pages = allocated.getLong(i + 1);
            for (long p = pageNo; p < pageNo + pages; p++) {
                setInUse(p, false);
            }
            release(pageNo, (int) pages);
        }
        end();
    }

    /**
     * After the revision of the transaction is published: its freed pages become reusable or wait
     * for the nearest held revision below it.
     *
     * @param held held revisions ascending (snapshots, the durable revision), {@code n} of them
     * @param holdersKnown false while a holder may still come to light at a revision older than the
     *     newest ({@link Holders#allKnown}): then a freed page waits for every held revision below the
     *     one that freed it, not only for those at or above the one that wrote it
     */
    void published(long revision, long[] held, int n, boolean holdersKnown) {
        lastCommitPages = transactionPages;
        long holder = PendingPages.floorBelow(held, n, revision);
        for (int i = 0; i < freed.size(); i += 3) {
            long pageNo = freed.getLong(i);
            int pages = (int) freed.getLong(i + 1);
            long written = freed.getLong(i + 2);
            if (freedLog != null) {
                freedLog.append(pageNo, pages, written, revision);
            }
            if (written > holder) {
                release(pageNo, pages);
            } else {
                pending.add(holder, holdersKnown ? PendingPages.ceiling(held, n, written) : 0, pageNo, pages);
            }
        }
        end();
    }

    /** Tells every freed run to writers of other processes from now on. */
    void logFreesTo(FreedLog log) {
        this.freedLog = log;
    }

    /** What this process knew of its free pages, kept across a catch-up ({@link #pendAfterCatchUp}). */
    record Before(long revision, long pageCount, PageSet reusable, LongArrayList pendingRuns) {
    }

    /** The free pages as seen now, at revision {@code revision}. */
    Before before(long revision) {
        LongArrayList runs = new LongArrayList();
        pending.copyTo(runs);
        return new Before(revision, store.pageCount(), reusable.copy(), runs);
    }

    /**
     * After loading the free space other processes left (writers that take turns): each free
     * page waits for the held revisions that can reach it. A page another process freed since
     * {@code before}, as {@code log} tells from entry {@code logFrom} on, can be reached from the
     * revision that wrote it to the one before the revision that freed it; a page pending here
     * before keeps what it waited for; a page reusable here before (or past the end of the file
     * then) that nobody freed since is reusable still. Where the log lost entries, pages not
     * accounted for wait for every held revision older than the newest, as far as they can tell.
     *
     * @param held held revisions ascending (snapshots, the durable revision), {@code n} of them
     */
    void pendAfterCatchUp(Before before, FreedLog log, long logFrom, long[] held, int n, long newest) {
        hotSize = 0;
        PageSet accounted = new PageSet();
        // Newest entries first: a page freed twice since is reached only by its last incarnation.
        LongArrayList others = new LongArrayList();
        boolean complete = log.read(logFrom, (pageNo, pages, written, freedAt) -> {
            others.addLong(pageNo);
            others.addLong(pages);
            others.addLong(written);
            others.addLong(freedAt);
        });
        for (int i = others.size() - 4; i >= 0; i -= 4) {
            long pageNo = others.getLong(i);
            long holder = PendingPages.floorBelow(held, n, others.getLong(i + 3));
            for (long p = pageNo; p < pageNo + others.getLong(i + 1); p++) {
                if (accounted.set(p) && reusable.get(p)) {
                    pendIfVisible(p, others.getLong(i + 2), holder, held, n);
                }
            }
        }
        long newestHeld = PendingPages.floorBelow(held, n, newest);
        LongArrayList runs = before.pendingRuns();
        for (int i = 0; i < runs.size(); i += 4) {
            long holder = runs.getLong(i);
            long low = runs.getLong(i + 1);
            long pageNo = runs.getLong(i + 2);
            for (long p = pageNo; p < pageNo + runs.getLong(i + 3); p++) {
                if (accounted.set(p) && reusable.get(p)) {
                    reusable.clear(p);
                    // Had another process used it since, a lost log entry would not say so.
                    pending.add(complete ? holder : Math.max(holder, newestHeld), low, p, 1);
                }
            }
        }
        for (long p = reusable.nextSetBit(PageStore.META_SLOTS); p >= 0; p = reusable.nextSetBit(p + 1)) {
            if (accounted.get(p)) {
                continue;
            }
            boolean freeBefore = before.reusable().get(p) || p >= before.pageCount();
            if (!freeBefore || !complete) {
                pendIfVisible(p, freeBefore ? before.revision() + 1 : 0, newestHeld, held, n);
            }
        }
    }

    private void pendIfVisible(long pageNo, long written, long holder, long[] held, int n) {
        if (holder >= 0 && written <= holder) {
            reusable.clear(pageNo);
            pending.add(holder, PendingPages.ceiling(held, n, written), pageNo, 1);
        }
    }

    /**
     * Makes a free page wait for held revisions from {@code low} to {@code holder}: at open, for a
     * page a named revision reaches that the free map calls free ({@link NamedRevisions}). In a
     * store that never reuses page numbers such a page was taken as discarded, and a sweep would
     * delete it.
     */
    void pendIfFree(long pageNo, long holder, long low) {
        if (pageNo < store.pageCount() && (reusable.get(pageNo) || discarded.get(pageNo))) {
            reusable.clear(pageNo);
            discarded.clear(pageNo);
            pending.add(holder, low, pageNo, 1);
        }
    }

    /**
     * Makes every reusable page wait for {@code holder}: at open, when readers hold revisions up to
     * it and which revision freed each free page is not known.
     */
    void pendAllReusable(long holder) {
        for (long p = reusable.nextSetBit(PageStore.META_SLOTS); p >= 0; p = reusable.nextSetBit(p + 1)) {
            reusable.clear(p);
            pending.add(holder, 0, p, 1);
        }
        hotSize = 0;
    }

    /**
     * Forgets everything, before the state another process left is loaded (writers that take
     * turns). Must not be called inside a transaction.
     */
    void reset() {
        inUse.clearAll();
        reusable.clearAll();
        discarded.clearAll();
        pending.clear();
        flips.clear();
        hint = PageStore.META_SLOTS;
        hotSize = 0;
        end();
    }

    /** Lets go of pending pages that no held revision can reach any more. */
    void releasePending(long[] held, int n) {
        if (!pending.isEmpty()) {
            pending.release(held, n, releaseSink);
        }
    }

    private void release(long pageNo, int pages) {
        if (!reuse) {
            for (long p = pageNo; p < pageNo + pages; p++) {
                discarded.set(p);
            }
            writeback.discard(pageNo, pages);
            return;
        }
        for (long p = pageNo; p < pageNo + pages; p++) {
            reusable.set(p);
        }
        hint = Math.min(hint, pageNo);
        if (pages == 1 && dirtied.get(pageNo)) {
            // Only a page written since the last checkpoint is still dirty. Pages a checkpoint lets
            // go were written before it and are clean: they are taken in page order like the others,
            // and would fill the ring to its cap (8 MiB of heap) on a large store.
            pushHot(pageNo);
        }
    }

    private void end() {
        flushedFreeMap = false;
        transaction = -1;
        transactionPages = 0;
        allocated.clear();
        freed.clear();
    }

    /** Tells the page store which runs the running transaction wrote (a remote store sends them). */
    void reportWritten() {
        for (int i = 0; i < allocated.size(); i += 2) {
            long pageNo = allocated.getLong(i);
            // A run freed again within the transaction is gone (a remote store discarded it already).
            if (inUse.get(pageNo)) {
                store.written(pageNo, (int) allocated.getLong(i + 1));
            }
        }
    }

    /** Pages the last committed transaction wrote (allocated). */
    long lastCommitPages() {
        return lastCommitPages;
    }

    /** Pages newly dirtied (not reused hot) since the last call, for checkpoint pacing. */
    long takePagesWritten() {
        long n = pagesWritten;
        pagesWritten = 0;
        return n;
    }

    private void setInUse(long pageNo, boolean on) {
        if (on ? inUse.set(pageNo) : inUse.clear(pageNo)) {
            flips.toggle(pageNo);
            if (flushedFreeMap) {
                flipsBeforeFlush.toggle(pageNo);
            }
        }
    }

    /**
     * The running transaction is about to write the flips into the free map, which empties them:
     * keeps them, and keeps them current, so that an abort finds them as they were.
     */
    void flushing() {
        flipsBeforeFlush.copyFrom(flips);
        flushedFreeMap = true;
    }

    /** Applies a flip read from the meta page: the page's state differs from the free map. */
    void loadFlip(long pageNo, long persistedPageCount) {
        flips.add(pageNo);
        if (pageNo < persistedPageCount && !inUse.clear(pageNo)) {
            inUse.set(pageNo);
        }
    }

    /**
     * Makes sure {@code pages} single pages can be allocated without growing the store, growing
     * it now if needed: after this, allocations cannot fail.
     */
    void reserve(long pages) {
        long missing = pages - reusable.cardinality();
        if (missing > 0) {
            extendTo(store.pageCount() + growthStep(), store.pageCount() + missing);
        }
    }

    /** Marks a page in use while loading (no flip: the persisted state says so). */
    void loadInUse(long pageNo) {
        inUse.set(pageNo);
    }

    /**
     * After loading: every page below the page count that is not in use is reusable (if the store
     * reuses pages; else only pages it gains from now on are).
     */
    void loaded() {
        long count = store.pageCount();
        for (long p = PageStore.META_SLOTS; p < count; p++) {
            if (!inUse.get(p)) {
                // A store that never reuses page numbers has given up every page not in use.
                (reuse ? reusable : discarded).set(p);
            }
        }
        for (long p = 0; p < PageStore.META_SLOTS; p++) {
            inUse.set(p);
        }
    }

    /** Lowest page at the end of the store from which every page is reusable. */
    long reusableTailStart() {
        long count = store.pageCount();
        long last = reusable.previousClearBit(count - 1);
        return Math.max(last + 1, PageStore.META_SLOTS);
    }

    /** Forgets pages at and past {@code newCount} (all reusable) before the store shrinks. */
    void shrinkTo(long newCount) {
        long count = store.pageCount();
        for (long p = newCount; p < count; p++) {
            reusable.clear(p);
        }
        hint = Math.min(hint, newCount);
        hotSize = 0;
    }
}
