// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.agrona.BufferUtil;
import static org.agrona.UnsafeAccess.UNSAFE;

/**
 * For each page, the revision at which this process last validated it (or wrote it). A pointer
 * names a page and the revision that wrote it; if the cache says the same revision, the page was
 * checked already and is trusted. A reused page carries a new revision, so nothing needs to be
 * invalidated. Eight bytes per page, off the heap, in segments of 64 KiB allocated as the store grows.
 */
final class VerifiedPages {
    private final int windowShift;
    private final long windowMask;
    private volatile long[] segments = new long[0];
    private final java.util.List<ByteBuffer> memory = new java.util.ArrayList<>();

    /** Pages per segment: a segment of the cache is 64 KiB, so a small store needs little. */
    private static final int SEGMENT_PAGES = 1 << 13;

    VerifiedPages() {
        this.windowShift = Integer.numberOfTrailingZeros(SEGMENT_PAGES);
        this.windowMask = SEGMENT_PAGES - 1;
    }

    long get(long pageNo) {
        long[] segs = segments;
        int s = (int) (pageNo >>> windowShift);
        return s < segs.length ? UNSAFE.getLong(segs[s] + ((pageNo & windowMask) << 3)) : 0;
    }

    void set(long pageNo, long revision) {
        int s = (int) (pageNo >>> windowShift);
        long[] segs = segments;
        if (s >= segs.length) {
            segs = grow(s);
        }
        UNSAFE.putOrderedLong(null, segs[s] + ((pageNo & windowMask) << 3), revision);
    }

    private synchronized long[] grow(int s) {
        long[] segs = segments;
        if (s < segs.length) {
            return segs;
        }
        long[] next = Arrays.copyOf(segs, s + 1);
        for (int i = segs.length; i <= s; i++) {
            ByteBuffer b = BufferUtil.allocateDirectAligned((int) ((windowMask + 1) << 3), 64);
            memory.add(b);
            next[i] = BufferUtil.address(b);
        }
        segments = next;
        return next;
    }
}
