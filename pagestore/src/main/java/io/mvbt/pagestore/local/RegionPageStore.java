// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.BufferUtil;

import io.mvbt.pagestore.PageStore;

/**
 * Pages held in regions of memory (direct buffers or file mappings), each added once as the store
 * grows and never moved. Growing never remaps what is there: a remapped region would have no page
 * table entries, and every page in it would fault again on its next touch.
 *
 * <p>Regions start and end at multiples of {@link #CHUNK_BYTES}; a table with one address per
 * chunk makes finding a page one array load. A run of pages is contiguous in memory when it stays
 * within one region ({@link #runEnd}).
 */
public abstract class RegionPageStore implements PageStore {
    /** Unit of growth and of the address table. */
    static final int CHUNK_BYTES = 1 << 20;

    /** One mapping or buffer. */
    private static final class Region {
        final ByteBuffer memory;
        final long firstPage;
        final long endPage;

        Region(ByteBuffer memory, long firstPage, long endPage) {
            this.memory = memory;
            this.firstPage = firstPage;
            this.endPage = endPage;
        }
    }

    private final int pageSize;
    private final int pageShift;
    private final int chunkPageShift;
    private final long chunkPageMask;
    /** Everything ever mapped or allocated, kept reachable so that old addresses stay valid. */
    private final List<Region> regions = new ArrayList<>();
    private volatile long[] chunkAddress = new long[0];
    private volatile Region[] chunkRegion = new Region[0];
    private volatile long pageCount;
    /** Runs crossing regions, mapped whole ({@link #crossingRun}), by page and length. */
    private final java.util.Map<Long, ByteBuffer> crossingRuns = new java.util.HashMap<>();
    private volatile boolean closed;
    /** Pages held in memory until a checkpoint writes them here, looked up first; null if none. */
    private volatile ShadowFile shadow;

    protected RegionPageStore(int pageSize) {
        if (!PageStore.validPageSize(pageSize)) {
            throw new IllegalArgumentException("page size must be a power of two from " + MIN_PAGE_SIZE
                    + " to " + MAX_PAGE_SIZE + ", not " + pageSize);
        }
        this.pageSize = pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.chunkPageShift = Integer.numberOfTrailingZeros(CHUNK_BYTES) - pageShift;
        this.chunkPageMask = (1L << chunkPageShift) - 1;
    }

    @Override
    public final int pageSize() {
        return pageSize;
    }

    @Override
    public final long pageCount() {
        return pageCount;
    }

    /** Pages in one chunk. */
    final long chunkPages() {
        return 1L << chunkPageShift;
    }

    /** {@code pages} rounded up to whole chunks. */
    protected final long roundUpToChunk(long pages) {
        return (pages + chunkPageMask) & ~chunkPageMask;
    }

    @Override
    public final long roundUpToGrowthUnit(long pages) {
        return roundUpToChunk(pages);
    }

    /** Shadows ever read through, kept reachable (mapped) as regions are: old addresses stay valid. */
    private final List<ShadowFile> shadowsSeen = new ArrayList<>();

    /** Reads pages held by {@code shadow} from it from now on (null: from the store alone). */
    public final void shadow(ShadowFile shadow) {
        if (shadow != null) {
            synchronized (shadowsSeen) {
                shadowsSeen.add(shadow);
            }
        }
        this.shadow = shadow;
    }

    /** Address of the store's own copy of {@code pageNo}, whatever a shadow holds. */
    public final long storedAddress(long pageNo) {
        return chunkAddress[(int) (pageNo >>> chunkPageShift)] + ((pageNo & chunkPageMask) << pageShift);
    }

    @Override
    public final long address(long pageNo) {
        ShadowFile s = shadow;
        if (s != null) {
            long address = s.address(pageNo);
            if (address != 0) {
                return address;
            }
        }
        return storedAddress(pageNo);
    }

    @Override
    public final long runEnd(long pageNo) {
        return chunkRegion[(int) (pageNo >>> chunkPageShift)].endPage;
    }

    @Override
    public final long runAddress(long pageNo, int pages) {
        if (pageNo + pages <= runEnd(pageNo)) {
            return address(pageNo);
        }
        return BufferUtil.address(crossingRun(pageNo, pages));
    }

    /** Forces page {@code pageNo} of a file mapping to the file: an msync of that page alone. */
    protected final void forceMappedPage(long pageNo) {
        Region region = chunkRegion[(int) (pageNo >>> chunkPageShift)];
        ((java.nio.MappedByteBuffer) region.memory).force((int) ((pageNo - region.firstPage) << pageShift), pageSize);
    }

    @Override
    public final ByteBuffer buffer(long pageNo, int pages) {
        ShadowFile s = shadow;
        if (s != null && pages == 1) {
            ByteBuffer held = s.buffer(pageNo);
            if (held != null) {
                return held;
            }
        }
        Region region = chunkRegion[(int) (pageNo >>> chunkPageShift)];
        if (pageNo + pages > region.endPage) {
            return crossingRun(pageNo, pages).duplicate().clear();
        }
        ByteBuffer memory = region.memory.duplicate();
        int start = (int) ((pageNo - region.firstPage) << pageShift);
        memory.limit(start + (pages << pageShift)).position(start);
        return memory.slice();
    }

    /**
     * A run that crosses from one region into the next (another process placed it within one of
     * its regions), mapped whole on first use and kept for good, as regions are: addresses handed
     * out must stay valid. Such runs are rare (one per region boundary at most at any time).
     */
    private synchronized ByteBuffer crossingRun(long pageNo, int pages) {
        long key = pageNo << 20 | pages;
        ByteBuffer run = crossingRuns.get(key);
        if (run == null) {
            run = mapRun(pageNo, pages);
            crossingRuns.put(key, run);
        }
        return run;
    }

    /**
     * Maps a run of pages as one range, beside the regions (a run that crosses regions); stores
     * whose runs were all placed by this process never need it.
     */
    ByteBuffer mapRun(long pageNo, int pages) {
        throw new IllegalStateException("run of " + pages + " pages at page " + pageNo + " crosses a region of "
                + describe());
    }

    @Override
    public final synchronized long appendRun(int pages) {
        // A region added now starts where the mapped regions end, so the run lies in one region.
        long start = coveredPages();
        extend(start + pages);
        return start;
    }

    /** Adds direct memory, if needed, so that the regions cover {@code pages} (memory-backed stores). */
    protected final synchronized void coverWithMemory(long pages) {
        long covered = coveredPages();
        if (pages > covered) {
            long bytes = roundUpToChunk(pages - covered) * pageSize;
            addRegion(BufferUtil.allocateDirectAligned((int) bytes, MIN_PAGE_SIZE), covered);
        }
    }

    /** Pages the regions cover; more than {@link #pageCount()} after a truncation. */
    final synchronized long coveredPages() {
        return chunkAddress.length << chunkPageShift;
    }

    /** Adds a region holding pages from {@code firstPage} on; both ends are chunk-aligned. */
    final synchronized void addRegion(ByteBuffer memory, long firstPage) {
        long pages = memory.capacity() >>> pageShift;
        if ((firstPage & chunkPageMask) != 0 || (pages & chunkPageMask) != 0 || firstPage != coveredPages()) {
            throw new IllegalArgumentException("region of " + pages + " pages at page " + firstPage
                    + " is not chunk-aligned or not at the end");
        }
        Region region = new Region(memory, firstPage, firstPage + pages);
        regions.add(region);
        int first = (int) (firstPage >>> chunkPageShift);
        int count = (int) (pages >>> chunkPageShift);
        long[] addresses = Arrays.copyOf(chunkAddress, first + count);
        Region[] owners = Arrays.copyOf(chunkRegion, first + count);
        long base = BufferUtil.address(memory);
        for (int i = 0; i < count; i++) {
            addresses[first + i] = base + ((long) i << (chunkPageShift + pageShift));
            owners[first + i] = region;
        }
        chunkRegion = owners;
        chunkAddress = addresses;
    }

    protected final void setPageCount(long pageCount) {
        this.pageCount = pageCount;
    }

    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException("page store " + describe() + " is closed");
        }
    }

    final boolean isClosed() {
        return closed;
    }

    protected final boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }
}
