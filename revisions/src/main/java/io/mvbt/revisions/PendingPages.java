// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.agrona.collections.LongArrayList;

/**
 * Freed pages that a reader may still reach, grouped by the revision that pins them.
 *
 * <p>A page written at revision w and freed at revision r is visible to snapshots of revisions
 * w to r-1, and to nobody else. So it may be reused once no held revision lies in [w, r) (bbolt's
 * rule, stricter than LMDB's "older than the oldest reader"): one long reader pins only the pages
 * it can see, not everything written after it. When the page is freed, the nearest held revision
 * below r is its holder h; if no held revision lies in [w, h] it is reusable at once, otherwise it
 * waits in group h. When h is let go, the group's pages are judged again against the next held
 * revision below h, and so on, so there are never more groups than held revisions.
 *
 * <p>Within a group, pages wait in buckets by a low bound l: the oldest held revision at or above
 * w when the page was freed (or less). A revision is only taken hold of when it is the newest
 * published one, and a page is judged after the revision that freed it is published, so no held
 * revision appears in [w, l) later, and the bucket's pages, whatever wrote them, are reachable
 * exactly while a held revision lies in [l, h]. That lets a bucket keep its single pages as a
 * bitmap once they outnumber a bit per page of the store: a checkpoint window of a large store
 * pins hundreds of thousands of them, and a list would take 8 to 20 bytes each.
 */
final class PendingPages {
    /** Receives runs that became reusable. */
    interface Sink {
        void release(long pageNo, int pages);
    }

    /** Single pages listed before a bucket turns them into a bitmap, at the least. */
    private static final int MIN_BITMAP_PAGES = 4096;

    /** Pages of a group that held revisions from {@link #low} up may reach. */
    private static final class Bucket {
        final long low;
        /** Single pages while they are few; null once they are in {@link #bitmap}. */
        long[] singles = new long[4];
        int singleCount;
        PageSet bitmap;
        long highestPage;
        /** Longer runs (overflow values): page, count; null until one comes. */
        LongArrayList runs;

        Bucket(long low) {
            this.low = low;
        }

        void add(long pageNo, int count) {
            if (count > 1) {
                if (runs == null) {
                    runs = new LongArrayList();
                }
                runs.addLong(pageNo);
                runs.addLong(count);
            } else if (bitmap != null) {
                bitmap.set(pageNo);
            } else {
                highestPage = Math.max(highestPage, pageNo);
                if (singleCount == singles.length) {
                    if (singleCount >= MIN_BITMAP_PAGES && singleCount > highestPage >>> 6) {
                        // A bit per page of the store is now less than a long per page listed.
                        bitmap = new PageSet();
                        for (int i = 0; i < singleCount; i++) {
                            bitmap.set(singles[i]);
                        }
                        bitmap.set(pageNo);
                        singles = null;
                        singleCount = 0;
                        return;
                    }
                    singles = Arrays.copyOf(singles, singleCount * 2);
                }
                singles[singleCount++] = pageNo;
            }
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
            if (runs != null) {
                for (int i = 0; i < runs.size(); i += 2) {
                    sink.release(runs.getLong(i), (int) runs.getLong(i + 1));
                }
            }
        }

        long pages() {
            long pages = singleCount + (bitmap == null ? 0 : bitmap.cardinality());
            if (runs != null) {
                for (int i = 1; i < runs.size(); i += 2) {
                    pages += runs.getLong(i);
                }
            }
            return pages;
        }
    }

    /** The pages one held revision pins, in buckets by low bound (one or two, as a rule). */
    private static final class Group {
        final List<Bucket> buckets = new ArrayList<>(2);

        /** The bucket of {@code low}, or null. */
        Bucket find(long low) {
            for (Bucket b : buckets) {
                if (b.low == low) {
                    return b;
                }
            }
            return null;
        }

        Bucket bucket(long low) {
            Bucket b = find(low);
            if (b == null) {
                b = new Bucket(low);
                buckets.add(b);
            }
            return b;
        }

        /**
         * Takes the pages of {@code from}. Buckets keep their low bound as it was, even where the
         * held revisions would allow a higher one: 0 stands for holders not known yet.
         */
        void merge(Bucket from) {
            Bucket same = find(from.low);
            if (same == null) {
                buckets.add(from);
            } else {
                from.forEach(same::add);
            }
        }
    }

    private final TreeMap<Long, Group> groups = new TreeMap<>();
    private long pageCount;
    /** The held revisions of the last {@link #release}: nothing to judge again while they stay. */
    private long[] judged = new long[0];
    private int judgedCount = -1;
    /** The bucket the last run went to: a commit adds its pages to the same one or two. */
    private long lastHolder = -1;
    private Bucket lastBucket;

    /** Pages waiting. */
    long pages() {
        return pageCount;
    }

    boolean isEmpty() {
        return groups.isEmpty();
    }

    /**
     * A run that held revision {@code holder} can still reach, and held revisions from {@code low}
     * up to it: {@code low} is the oldest held revision at or above the one that wrote the run, or
     * any revision below that.
     */
    void add(long holder, long low, long pageNo, int count) {
        if (lastBucket == null || holder != lastHolder || low != lastBucket.low) {
            Group g = groups.get(holder);
            if (g == null) {
                g = new Group();
                groups.put(holder, g);
                if (judgedCount >= 0 && Arrays.binarySearch(judged, 0, judgedCount, holder) < 0) {
                    // A holder the last release did not see: the next one looks at every group.
                    judgedCount = -1;
                }
            }
            lastBucket = g.bucket(low);
            lastHolder = holder;
        }
        lastBucket.add(pageNo, count);
        pageCount += count;
    }

    /** Forgets every pending page (their state is loaded again). */
    void clear() {
        groups.clear();
        pageCount = 0;
        judgedCount = -1;
        lastBucket = null;
    }

    /**
     * Judges every group whose holder is no longer held against the next held revision below it.
     *
     * @param held held revisions, ascending, {@code n} of them
     */
    void release(long[] held, int n, Sink sink) {
        if (!groups.isEmpty()) {
            lastBucket = null;
            if (judgedCount < 0) {
                releaseAll(held, n, sink);
            } else {
                releaseGone(held, n, sink);
            }
        }
        if (judged.length < n) {
            judged = new long[Math.max(n, 2 * judged.length)];
        }
        System.arraycopy(held, 0, judged, 0, n);
        judgedCount = n;
    }

    /** Every group's holder was held at the last release: only those held then and not now need judging. */
    private void releaseGone(long[] held, int n, Sink sink) {
        int j = 0;
        for (int i = 0; i < judgedCount; i++) {
            long before = judged[i];
            while (j < n && held[j] < before) {
                j++;
            }
            if (j < n && held[j] == before) {
                continue;
            }
            Group g = groups.remove(before);
            if (g != null) {
                // Into a group that is held, so not judged again in this pass.
                judge(g, before, held, n, sink, groups);
            }
        }
    }

    private void releaseAll(long[] held, int n, Sink sink) {
        Iterator<Map.Entry<Long, Group>> it = groups.entrySet().iterator();
        // Ascending: a group moves downwards, into a group that is held and so is not revisited.
        TreeMap<Long, Group> moved = new TreeMap<>();
        while (it.hasNext()) {
            Map.Entry<Long, Group> e = it.next();
            long holder = e.getKey();
            if (Arrays.binarySearch(held, 0, n, holder) >= 0) {
                continue;
            }
            // Read the group before removing: TreeMap's remove may reuse the entry for its successor.
            Group g = e.getValue();
            it.remove();
            judge(g, holder, held, n, sink, moved);
        }
        for (Map.Entry<Long, Group> e : moved.entrySet()) {
            Group target = groups.computeIfAbsent(e.getKey(), h -> new Group());
            for (Bucket b : e.getValue().buckets) {
                target.merge(b);
            }
        }
    }

    /**
     * Releases the buckets of group {@code g}, whose holder {@code holder} is gone, that no held
     * revision can reach; moves the others to the group of the next held revision below it, in
     * {@code into}.
     */
    private void judge(Group g, long holder, long[] held, int n, Sink sink, TreeMap<Long, Group> into) {
        long below = floorBelow(held, n, holder);
        for (Bucket b : g.buckets) {
            long reaching = ceiling(held, n, b.low);
            if (below < 0 || reaching < 0 || reaching > below) {
                pageCount -= b.pages();
                b.forEach(sink);
            } else {
                into.computeIfAbsent(below, h -> new Group()).merge(b);
            }
        }
    }

    /**
     * Pages that held revision {@code holder} alone can reach: those of its group whose oldest
     * reaching held revision is itself (ask after a {@link #release} with the same held revisions).
     */
    long pagesOnlyHeldBy(long holder, long[] held, int n) {
        Group g = groups.get(holder);
        long pages = 0;
        if (g != null) {
            for (Bucket b : g.buckets) {
                if (ceiling(held, n, b.low) == holder) {
                    pages += b.pages();
                }
            }
        }
        return pages;
    }

    /** Every pending run as (holder, low, page, count). */
    void copyTo(LongArrayList runs) {
        for (Map.Entry<Long, Group> e : groups.entrySet()) {
            long holder = e.getKey();
            for (Bucket b : e.getValue().buckets) {
                b.forEach((pageNo, pages) -> {
                    runs.addLong(holder);
                    runs.addLong(b.low);
                    runs.addLong(pageNo);
                    runs.addLong(pages);
                });
            }
        }
    }

    /** Every pending run, for the integrity checker. */
    void forEach(Sink sink) {
        for (Group g : groups.values()) {
            for (Bucket b : g.buckets) {
                b.forEach(sink);
            }
        }
    }

    /** Largest held revision below {@code revision}, or -1. */
    static long floorBelow(long[] held, int n, long revision) {
        int i = Arrays.binarySearch(held, 0, n, revision);
        int below = (i >= 0 ? i : -i - 1) - 1;
        return below >= 0 ? held[below] : -1;
    }

    /** Smallest held revision at or above {@code revision}, or -1. */
    static long ceiling(long[] held, int n, long revision) {
        int i = Arrays.binarySearch(held, 0, n, revision);
        int at = i >= 0 ? i : -i - 1;
        return at < n ? held[at] : -1;
    }
}
