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

    /**
     * Listed single pages past which a group keeps its single pages as a bitmap instead: 20 bytes
     * a page in lists, one bit per page of the store in a bitmap. A checkpoint window of a large
     * store frees hundreds of thousands of pages its durable revision still reaches.
     */
    static final int LISTED_SINGLES = 1 << 14;

    private static final class Group {
        long[] pages = new long[8];
        int[] counts = new int[8];
        long[] written = new long[8];
        int size;
        /**
         * Single pages as a bitmap (null until the lists grow past {@link #LISTED_SINGLES}), with
         * the oldest revision that wrote any of them: each is judged as if written then, which
         * can only make it wait longer.
         */
        PageSet singles;
        long singlesWritten = Long.MAX_VALUE;

        void add(long page, int count, long writtenAt) {
            if (singles != null && count == 1) {
                singles.set(page);
                singlesWritten = Math.min(singlesWritten, writtenAt);
                return;
            }
            if (size == pages.length) {
                if (size >= LISTED_SINGLES && singles == null) {
                    moveSinglesToBitmap();
                    add(page, count, writtenAt);
                    return;
                }
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

        private void moveSinglesToBitmap() {
            singles = new PageSet();
            int kept = 0;
            for (int i = 0; i < size; i++) {
                if (counts[i] == 1) {
                    singles.set(pages[i]);
                    singlesWritten = Math.min(singlesWritten, written[i]);
                } else {
                    pages[kept] = pages[i];
                    counts[kept] = counts[i];
                    written[kept] = written[i];
                    kept++;
                }
            }
            size = kept;
            int capacity = Math.max(8, Integer.highestOneBit(Math.max(1, kept)) * 2);
            pages = Arrays.copyOf(pages, capacity);
            counts = Arrays.copyOf(counts, capacity);
            written = Arrays.copyOf(written, capacity);
        }

        /** Calls {@code visitor} with each pending run: (page, count, written). */
        void forEach(RunVisitor visitor) {
            for (int i = 0; i < size; i++) {
                visitor.run(pages[i], counts[i], written[i]);
            }
            if (singles != null) {
                for (long p = singles.nextSetBit(0); p >= 0; p = singles.nextSetBit(p + 1)) {
                    visitor.run(p, 1, singlesWritten);
                }
            }
        }
    }

    private interface RunVisitor {
        void run(long page, int count, long written);
    }

    private final TreeMap<Long, Group> groups = new TreeMap<>();
    /** Where {@link #release} gathers the pages that move to an older holder (empty between calls). */
    private final TreeMap<Long, Group> merging = new TreeMap<>();
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
        TreeMap<Long, Group> merged = merging;
        // Left over only if a sink failed part way: those pages are forgotten (leaked), never doubled.
        merged.clear();
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
            g.forEach((page, count, written) -> {
                if (written > below) {
                    pageCount -= count;
                    sink.release(page, count);
                } else {
                    merged.computeIfAbsent(below, h -> new Group()).add(page, count, written);
                }
            });
        }
        if (!merged.isEmpty()) {
            for (Map.Entry<Long, Group> e : merged.entrySet()) {
                Group target = groups.computeIfAbsent(e.getKey(), h -> new Group());
                e.getValue().forEach(target::add);
            }
            merged.clear();
        }
    }

    /** Every pending run as (holder, page, count, written). */
    void copyTo(org.agrona.collections.LongArrayList runs) {
        for (Map.Entry<Long, Group> e : groups.entrySet()) {
            long holder = e.getKey();
            e.getValue().forEach((page, count, written) -> {
                runs.addLong(holder);
                runs.addLong(page);
                runs.addLong(count);
                runs.addLong(written);
            });
        }
    }

    /** Every pending run, for the integrity checker. */
    void forEach(Sink sink) {
        for (Group g : groups.values()) {
            g.forEach((page, count, written) -> sink.release(page, count));
        }
    }

    /** Largest held revision below {@code revision}, or -1. */
    static long floorBelow(long[] held, int n, long revision) {
        int i = Arrays.binarySearch(held, 0, n, revision);
        int below = (i >= 0 ? i : -i - 1) - 1;
        return below >= 0 ? held[below] : -1;
    }
}
