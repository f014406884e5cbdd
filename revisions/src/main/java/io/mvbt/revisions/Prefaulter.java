// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.pagestore.PageStore;

/**
 * The background thread that takes, after each checkpoint, the write faults of the free pages the
 * writer will allocate next. A checkpoint writes every page back, and the first store to a page
 * written back faults (a few microseconds on most machines, 15 or more on some virtual ones); a
 * writer that rewrites a working set of pages pays that once per page per checkpoint. Here another
 * core pays it, ahead of the writer, or while the writer is idle. Pages the store grows by fault on
 * their first store too, so they join the job as they come. The touch leaves the pages' bytes as
 * they are ({@link PageStore#prefault}). Between touches it also writes the zeros of the store's
 * next growth, which the writer would otherwise write itself when it runs out of pages.
 *
 * <p>It stays at most {@link #LEAD} pages ahead of the writer's use: a touched page is written
 * back at the next checkpoint whether the writer used it or not, and on some virtual machines a
 * fault on one core slows the others too, so touching far ahead of a writer that may not come
 * would cost readers for nothing. It sleeps while that far ahead, and the writer wakes it halfway.
 */
final class Prefaulter extends StoreThread {
    /** Pages touched per call, under the page store's lock that truncation also takes. */
    private static final int BATCH = 16;
    /** How far ahead of the writer's use it touches: 4 MiB of 4 KiB pages. */
    static final int LEAD = 1024;
    /** Most pages one job lists: 8 MiB of page numbers. */
    private static final int MAX_JOB = 1 << 20;
    /** Zeros written ahead per call, under the page store's lock that growth also takes. */
    private static final long ZERO_BYTES = 256 << 10;

    private final FilePageStore pages;
    /** The pages to touch, in the order the writer will allocate them; replaced after each checkpoint. */
    private volatile Job job;
    /** Pages of the job the writer has taken (written by the writer only). */
    private volatile long used;
    /** The use at which the writer wakes the thread, which sleeps far enough ahead. */
    private volatile long wakeAt = Long.MAX_VALUE;
    /** Pages touched so far (written by the thread only). */
    private volatile long touched;
    /** The page count whose growth to prepare: as far again as the last growth went. */
    private volatile long zeroTo;
    /** The page count prepared so far, or given up on (read and written by the thread only). */
    private long zeroedTo;

    /** Pages in allocation order; {@code pageNos[i]} is the writer's {@code base + i}-th clean page of the window. */
    private record Job(long[] pageNos, int count, long base) {
    }

    Prefaulter(FilePageStore pages, String name) {
        super("mvbt-prefault " + name);
        this.pages = pages;
    }

    /**
     * Touches the first {@code count} of {@code pageNos} from now on, instead of the previous job
     * (holding the writer, right after a checkpoint, before it allocates any of them).
     */
    void touchAhead(long[] pageNos, int count) {
        used = 0;
        wakeAt = Long.MAX_VALUE;
        job = new Job(pageNos, count, 0);
        wake();
    }

    /**
     * The store grew by pages {@code from .. to-1}, all clean: the writer takes them upwards once the
     * pages of the job are gone (growth comes only when nothing else is free), so they go after them.
     * A store that grew once grows again, by as much: the zeros of that growth are written now, in
     * this thread ({@link PageStore#zeroAhead}), not later in the writer's.
     */
    void grown(long from, long to) {
        zeroTo = to + (to - from);
        Job current = job;
        long u = used;
        long base = u;
        long[] rest = new long[0];
        if (current != null && u < current.base + current.count) {
            int skip = (int) Math.max(0, u - current.base);
            rest = Arrays.copyOfRange(current.pageNos, skip, current.count);
            base = current.base + skip;
        }
        int added = (int) Math.min(to - from, MAX_JOB - rest.length);
        long[] pageNos = Arrays.copyOf(rest, rest.length + added);
        for (int i = 0; i < added; i++) {
            pageNos[rest.length + i] = from + i;
        }
        job = new Job(pageNos, pageNos.length, base);
        wake();
    }

    /** The writer has taken {@code n} pages of the job (the n-th clean page since the checkpoint). */
    void used(long n) {
        used = n;
        if (n >= wakeAt) {
            wakeAt = Long.MAX_VALUE;
            wake();
        }
    }

    @Override
    public void run() {
        Job done = null;
        while (!stopping()) {
            Job current = job;
            if (current != done) {
                done = current;
                try {
                    touch(current);
                } catch (RuntimeException e) {
                    // A hint only: a store that closed or failed meanwhile ends the job.
                }
            } else if (!zeroSome()) {
                LockSupport.park(this);
            }
        }
    }

    /** Writes a piece of the zeros of the next growth; false if there was nothing to write. */
    private boolean zeroSome() {
        long target = zeroTo;
        if (target <= zeroedTo) {
            return false;
        }
        boolean more = false;
        try {
            more = pages.zeroAhead(target, ZERO_BYTES);
        } catch (RuntimeException e) {
            // A hint only, like the touches.
        }
        if (!more) {
            zeroedTo = target;
        }
        return true;
    }

    private void touch(Job current) {
        long i = 0;
        while (i < current.count && job == current && !stopping()) {
            long u = used - current.base;
            if (u > i) {
                // The writer got there first and took the faults itself.
                i = Math.min(u, current.count);
                continue;
            }
            if (i - u >= LEAD) {
                wakeAt = current.base + i - LEAD / 2;
                if (used < wakeAt && job == current && !stopping() && !zeroSome()) {
                    LockSupport.park(this);
                }
                continue;
            }
            int n = (int) Math.min(Math.min(BATCH, current.count - i), u + LEAD - i);
            pages.prefault(current.pageNos, (int) i, n);
            touched += n;
            i += n;
        }
    }

    /** Pages touched since the store opened. */
    long touched() {
        return touched;
    }
}
