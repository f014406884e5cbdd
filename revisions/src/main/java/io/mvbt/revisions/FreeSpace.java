package io.mvbt.revisions;

import org.agrona.collections.LongArrayList;
import org.agrona.collections.LongHashSet;

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
 * Every page below the page count is exactly one of: in use, reusable, pending.
 */
final class FreeSpace {
    private final PageStore store;
    final PageSet inUse = new PageSet();
    final PageSet reusable = new PageSet();
    final PendingPages pending = new PendingPages();
    /** Pages whose in-use bit differs from the persisted free map. */
    final LongHashSet flips = new LongHashSet();

    /** Runs the running transaction allocated: page, count. */
    private final LongArrayList allocated = new LongArrayList();
    /** Runs the running transaction freed that an earlier revision wrote: page, count, written. */
    private final LongArrayList freed = new LongArrayList();
    private long transaction = -1;
    private long hint = PageStore.META_SLOTS;
    private long pagesWritten;

    FreeSpace(PageStore store) {
        this.store = store;
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
        long window = store.pagesPerWindow();
        long page = pages == 1 ? reusable.nextSetBit(hint) : reusable.findRun(pages, hint, store.pageCount(), window);
        if (page < 0 || page + pages > store.pageCount()) {
            page = grow(pages);
        }
        for (long p = page; p < page + pages; p++) {
            reusable.clear(p);
            setInUse(p, true);
        }
        if (pages == 1) {
            hint = page + 1;
        }
        allocated.addLong(page);
        allocated.addLong(pages);
        pagesWritten += pages;
        return page;
    }

    /** Extends the store so that a run of {@code pages} fits at its end, within one window. */
    private long grow(int pages) {
        long count = store.pageCount();
        long window = store.pagesPerWindow();
        // The free tail of the store may start the run.
        long start = count;
        while (start > PageStore.META_SLOTS && reusable.get(start - 1)) {
            start--;
        }
        if (start / window != (start + pages - 1) / window) {
            start = (start + pages - 1) / window * window;
        }
        long bytes = count * (long) store.pageSize();
        long step = Math.min(Math.max(bytes / 8, 1L << 20), 64L << 20) / store.pageSize();
        long newCount = Math.max(start + pages, count + step);
        store.extend(newCount);
        for (long p = count; p < newCount; p++) {
            reusable.set(p);
        }
        return start;
    }

    /** Frees a run; pages of the running transaction are reusable at once. */
    void free(long page, long written, int pages) {
        for (long p = page; p < page + pages; p++) {
            setInUse(p, false);
        }
        if (written == transaction) {
            for (long p = page; p < page + pages; p++) {
                reusable.set(p);
            }
            hint = Math.min(hint, page);
        } else {
            freed.addLong(page);
            freed.addLong(pages);
            freed.addLong(written);
        }
    }

    /** Gives back everything the running transaction allocated and takes back what it freed. */
    void abort() {
        for (int i = 0; i < freed.size(); i += 3) {
            long page = freed.getLong(i);
            long pages = freed.getLong(i + 1);
            for (long p = page; p < page + pages; p++) {
                setInUse(p, true);
            }
        }
        for (int i = 0; i < allocated.size(); i += 2) {
            long page = allocated.getLong(i);
            long pages = allocated.getLong(i + 1);
            for (long p = page; p < page + pages; p++) {
                setInUse(p, false);
                reusable.set(p);
            }
            hint = Math.min(hint, page);
        }
        end();
    }

    /**
     * After the revision of the transaction is published: its freed pages become reusable or wait
     * for the nearest held revision below it.
     *
     * @param held held revisions ascending (snapshots, the durable revision), {@code n} of them
     */
    void published(long revision, long[] held, int n) {
        long holder = PendingPages.floorBelow(held, n, revision);
        for (int i = 0; i < freed.size(); i += 3) {
            long page = freed.getLong(i);
            int pages = (int) freed.getLong(i + 1);
            long written = freed.getLong(i + 2);
            if (written > holder) {
                release(page, pages);
            } else {
                pending.add(holder, page, pages, written);
            }
        }
        end();
    }

    /** Lets go of pending pages that no held revision can reach any more. */
    void releasePending(long[] held, int n) {
        pending.release(held, n, this::release);
    }

    private void release(long page, int pages) {
        for (long p = page; p < page + pages; p++) {
            reusable.set(p);
        }
        hint = Math.min(hint, page);
    }

    private void end() {
        transaction = -1;
        allocated.clear();
        freed.clear();
    }

    /** Pages allocated since the last call (for checkpoint pacing). */
    long takePagesWritten() {
        long n = pagesWritten;
        pagesWritten = 0;
        return n;
    }

    private void setInUse(long page, boolean on) {
        if (on ? inUse.set(page) : inUse.clear(page)) {
            if (!flips.remove(page)) {
                flips.add(page);
            }
        }
    }

    /** Applies a flip read from the meta page: the page's state differs from the free map. */
    void loadFlip(long page, long persistedPageCount) {
        flips.add(page);
        if (page < persistedPageCount && !inUse.clear(page)) {
            inUse.set(page);
        }
    }

    /**
     * Makes sure {@code pages} single pages can be allocated without growing the store, growing
     * it now if needed: after this, allocations cannot fail.
     */
    void reserve(long pages) {
        if (reusable.cardinality() < pages) {
            long count = store.pageCount();
            long newCount = count + pages - reusable.cardinality();
            store.extend(newCount);
            for (long p = count; p < newCount; p++) {
                reusable.set(p);
            }
        }
    }

    /** Marks a page in use while loading (no flip: the persisted state says so). */
    void loadInUse(long page) {
        inUse.set(page);
    }

    /** After loading: every page below the page count that is not in use is reusable. */
    void loaded() {
        long count = store.pageCount();
        for (long p = PageStore.META_SLOTS; p < count; p++) {
            if (!inUse.get(p)) {
                reusable.set(p);
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
    }
}
