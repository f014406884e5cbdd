package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.collections.LongArrayList;

/**
 * Freed pages that a reader may still reach, grouped by the held revisions that can reach them.
 *
 * <p>A page written at revision w and freed at revision r is visible to snapshots of revisions
 * w to r-1, and to nobody else. So it may be reused once no held revision lies in [w, r) (bbolt's
 * rule, stricter than LMDB's "older than the oldest reader"): one long reader pins only the pages
 * it can see, not everything written after it.
 *
 * <p>A revision is only ever taken hold of when it is the newest published one, and a page is
 * judged after the revision that freed it is published; so the held revisions in [w, r) can only
 * go, never come. That set is therefore always the held revisions in [low, holder], where low and
 * holder are the lowest and highest of it when the page was freed, and pages with the same pair
 * wait and move together, without remembering which revision wrote each. That is what lets a
 * group keep its single pages as a bitmap once they outnumber a bit per page of the store: a
 * checkpoint window of a large store pins hundreds of thousands of them.
 */
final class PendingPages {
    /** Receives runs that became reusable. */
    interface Sink {
        void release(long page, int pages);
    }

    /** Single pages listed before a group turns them into a bitmap, at the least. */
    private static final int MIN_BITMAP_PAGES = 4096;

    /** The pages that held revisions [low, holder] can reach, and no others. */
    private static final class Group {
        long holder;
        long low;
        /** Single pages, while they are few; null once they are in {@link #bitmap}. */
        long[] singles = new long[8];
        int singleCount;
        PageSet bitmap;
        long highestPage;
        /** Longer runs (overflow values): page, count. */
        final LongArrayList runs = new LongArrayList();

        Group(long holder, long low) {
            this.holder = holder;
            this.low = low;
        }

        void add(long page, int count) {
            if (count > 1) {
                runs.addLong(page);
                runs.addLong(count);
                return;
            }
            if (bitmap != null) {
                bitmap.set(page);
                return;
            }
            highestPage = Math.max(highestPage, page);
            if (singleCount == singles.length) {
                if (singleCount >= MIN_BITMAP_PAGES && singleCount > highestPage >>> 6) {
                    // A bit per page of the store is now less than a long per page listed.
                    bitmap = new PageSet();
                    for (int i = 0; i < singleCount; i++) {
                        bitmap.set(singles[i]);
                    }
                    bitmap.set(page);
                    singles = null;
                    singleCount = 0;
                    return;
                }
                singles = Arrays.copyOf(singles, singleCount * 2);
            }
            singles[singleCount++] = page;
        }

        void forEach(Sink sink) {
            for (int i = 0; i < singleCount; i++) {
                sink.release(singles[i], 1);
            }
            if (bitmap != null) {
                for (long p = bitmap.nextSetBit(0); p >= 0; p = bitmap.nextSetBit(p + 1)) {
                    sink.release(p, 1);
                }
            }
            for (int i = 0; i < runs.size(); i += 2) {
                sink.release(runs.getLong(i), (int) runs.getLong(i + 1));
            }
        }
    }

    /** Few: at most one per pair of held revisions, in practice one or two. */
    private final List<Group> groups = new ArrayList<>();
    private long pageCount;

    /** Pages waiting. */
    long pages() {
        return pageCount;
    }

    boolean isEmpty() {
        return groups.isEmpty();
    }

    /**
     * A run that held revisions from {@code low} to {@code holder} can reach: {@code holder} is
     * the newest held revision below the one that freed it, {@code low} at most the oldest held
     * revision at or above the one that wrote it (the revision that wrote it will do).
     */
    void add(long holder, long low, long page, int count) {
        group(holder, low).add(page, count);
        pageCount += count;
    }

    private Group group(long holder, long low) {
        // The newest group first: a commit adds its pages to the same one or two.
        for (int i = groups.size() - 1; i >= 0; i--) {
            Group g = groups.get(i);
            if (g.holder == holder && g.low == low) {
                return g;
            }
        }
        Group g = new Group(holder, low);
        groups.add(g);
        return g;
    }

    /** Forgets every pending page (their state is loaded again). */
    void clear() {
        groups.clear();
        pageCount = 0;
    }

    /**
     * Narrows every group to the held revisions that can still reach it; releases those that none
     * can reach and merges those that come to wait for the same ones.
     *
     * @param held held revisions, ascending, {@code n} of them
     */
    void release(long[] held, int n, Sink sink) {
        for (int i = 0; i < groups.size(); i++) {
            Group g = groups.get(i);
            long low = ceiling(held, n, g.low);
            long holder = floor(held, n, g.holder);
            if (low == g.low && holder == g.holder) {
                continue;
            }
            if (low < 0 || holder < low) {
                g.forEach(sink);
                pageCount -= pagesOf(g);
                removeAt(i--);
                continue;
            }
            Group same = null;
            for (Group other : groups) {
                if (other != g && other.holder == holder && other.low == low) {
                    same = other;
                    break;
                }
            }
            if (same == null) {
                g.holder = holder;
                g.low = low;
            } else {
                Group target = same;
                g.forEach(target::add);
                removeAt(i--);
            }
        }
    }

    private void removeAt(int i) {
        int last = groups.size() - 1;
        groups.set(i, groups.get(last));
        groups.remove(last);
    }

    private static long pagesOf(Group g) {
        long pages = g.singleCount + (g.bitmap == null ? 0 : g.bitmap.cardinality());
        for (int i = 1; i < g.runs.size(); i += 2) {
            pages += g.runs.getLong(i);
        }
        return pages;
    }

    /** Every pending run as (holder, low, page, count). */
    void copyTo(LongArrayList runs) {
        for (Group g : groups) {
            g.forEach((page, pages) -> {
                runs.addLong(g.holder);
                runs.addLong(g.low);
                runs.addLong(page);
                runs.addLong(pages);
            });
        }
    }

    /** Every pending run, for the integrity checker. */
    void forEach(Sink sink) {
        for (Group g : groups) {
            g.forEach(sink);
        }
    }

    /** Largest held revision below {@code revision}, or -1. */
    static long floorBelow(long[] held, int n, long revision) {
        int i = Arrays.binarySearch(held, 0, n, revision);
        int below = (i >= 0 ? i : -i - 1) - 1;
        return below >= 0 ? held[below] : -1;
    }

    /** Largest held revision at or below {@code revision}, or -1. */
    static long floor(long[] held, int n, long revision) {
        int i = Arrays.binarySearch(held, 0, n, revision);
        return i >= 0 ? revision : floorBelow(held, n, revision);
    }

    /** Smallest held revision at or above {@code revision}, or -1. */
    static long ceiling(long[] held, int n, long revision) {
        int i = Arrays.binarySearch(held, 0, n, revision);
        int at = i >= 0 ? i : -i - 1;
        return at < n ? held[at] : -1;
    }
}
