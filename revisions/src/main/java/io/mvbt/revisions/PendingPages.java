package io.mvbt.revisions;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Freed pages that a reader may still reach, grouped by the revision that pins them.
 *
 * <p>A page written at revision w and freed at revision r is visible to snapshots of revisions
 * w to r-1, and to nobody else. So it may be reused once no held revision lies in [w, r) (bbolt's
 * rule, stricter than LMDB's "older than the oldest reader"): one long reader pins only the pages
 * it can see, not everything written after it. When the page is freed, the nearest held revision
 * below r is h; if w > h it is reusable at once, otherwise it waits in group h. When h is let go,
 * the group's pages are judged again against the next held revision below h, and so on. Groups
 * with the same holder merge, so there are never more groups than held revisions.
 */
final class PendingPages {
    /** Receives runs that became reusable. */
    interface Sink {
        void release(long page, int pages);
    }

    private static final class Group {
        long[] pages = new long[8];
        int[] counts = new int[8];
        long[] written = new long[8];
        int size;

        void add(long page, int count, long writtenAt) {
            if (size == pages.length) {
                int n = size * 2;
                pages = Arrays.copyOf(pages, n);
                counts = Arrays.copyOf(counts, n);
                written = Arrays.copyOf(written, n);
            }
            pages[size] = page;
            counts[size] = count;
            written[size] = writtenAt;
            size++;
        }
    }

    private final TreeMap<Long, Group> groups = new TreeMap<>();
    private long pageCount;

    /** Pages waiting. */
    long pages() {
        return pageCount;
    }

    boolean isEmpty() {
        return groups.isEmpty();
    }

    /** A run written at {@code written} that held revision {@code holder} can still reach. */
    void add(long holder, long page, int count, long written) {
        groups.computeIfAbsent(holder, h -> new Group()).add(page, count, written);
        pageCount += count;
    }

    /** Forgets every pending page (their state is loaded again). */
    void clear() {
        groups.clear();
        pageCount = 0;
    }

    /**
     * Judges every group whose holder is no longer held against the next held revision below it.
     *
     * @param held held revisions, ascending, {@code n} of them
     */
    void release(long[] held, int n, Sink sink) {
        if (groups.isEmpty()) {
            return;
        }
        Iterator<Map.Entry<Long, Group>> it = groups.entrySet().iterator();
        // Ascending: a group merges downwards, into a group that is held and so is not revisited.
        TreeMap<Long, Group> merged = null;
        while (it.hasNext()) {
            Map.Entry<Long, Group> e = it.next();
            long holder = e.getKey();
            if (Arrays.binarySearch(held, 0, n, holder) >= 0) {
                continue;
            }
            // Read the group before removing: TreeMap's remove may reuse the entry for its successor.
            Group g = e.getValue();
            it.remove();
            long below = floorBelow(held, n, holder);
            for (int i = 0; i < g.size; i++) {
                if (g.written[i] > below) {
                    pageCount -= g.counts[i];
                    sink.release(g.pages[i], g.counts[i]);
                } else {
                    if (merged == null) {
                        merged = new TreeMap<>();
                    }
                    merged.computeIfAbsent(below, h -> new Group()).add(g.pages[i], g.counts[i], g.written[i]);
                }
            }
        }
        if (merged != null) {
            for (Map.Entry<Long, Group> e : merged.entrySet()) {
                Group target = groups.computeIfAbsent(e.getKey(), h -> new Group());
                Group g = e.getValue();
                for (int i = 0; i < g.size; i++) {
                    target.add(g.pages[i], g.counts[i], g.written[i]);
                }
            }
        }
    }

    /** Every pending run as (holder, page, count, written). */
    void copyTo(org.agrona.collections.LongArrayList runs) {
        for (Map.Entry<Long, Group> e : groups.entrySet()) {
            Group g = e.getValue();
            for (int i = 0; i < g.size; i++) {
                runs.addLong(e.getKey());
                runs.addLong(g.pages[i]);
                runs.addLong(g.counts[i]);
                runs.addLong(g.written[i]);
            }
        }
    }

    /** Every pending run, for the integrity checker. */
    void forEach(Sink sink) {
        for (Group g : groups.values()) {
            for (int i = 0; i < g.size; i++) {
                sink.release(g.pages[i], g.counts[i]);
            }
        }
    }

    /** Largest held revision below {@code revision}, or -1. */
    static long floorBelow(long[] held, int n, long revision) {
        int i = Arrays.binarySearch(held, 0, n, revision);
        int below = (i >= 0 ? i : -i - 1) - 1;
        return below >= 0 ? held[below] : -1;
    }
}
