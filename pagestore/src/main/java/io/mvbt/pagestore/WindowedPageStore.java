package io.mvbt.pagestore;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.BufferUtil;

/**
 * Pages held in a row of equally sized memory windows (direct buffers or file mappings). A page
 * never straddles two windows. Replaced mappings are kept until the store itself is unreachable,
 * so an address handed out earlier never dangles.
 */
abstract class WindowedPageStore implements PageStore {
    private final int pageSize;
    private final int pageShift;
    private final int windowPageShift;
    private final long windowPageMask;
    /** Everything ever mapped or allocated, kept reachable so that old addresses stay valid. */
    private final List<ByteBuffer> keepAlive = new ArrayList<>();
    private volatile long[] windowAddresses = new long[0];
    private volatile ByteBuffer[] windowBuffers = new ByteBuffer[0];
    private volatile long pageCount;
    private volatile boolean closed;

    WindowedPageStore(int pageSize, int windowBytes) {
        if (!PageStore.validPageSize(pageSize)) {
            throw new IllegalArgumentException("page size must be a power of two from " + MIN_PAGE_SIZE
                    + " to " + MAX_PAGE_SIZE + ", not " + pageSize);
        }
        this.pageSize = pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.windowPageShift = Integer.numberOfTrailingZeros(windowBytes) - pageShift;
        this.windowPageMask = (1L << windowPageShift) - 1;
    }

    @Override
    public final int pageSize() {
        return pageSize;
    }

    @Override
    public final long pageCount() {
        return pageCount;
    }

    @Override
    public final int pagesPerWindow() {
        return 1 << windowPageShift;
    }

    final long windowBytes() {
        return (long) pageSize << windowPageShift;
    }

    @Override
    public final long address(long pageNo) {
        return windowAddresses[(int) (pageNo >>> windowPageShift)] + ((pageNo & windowPageMask) << pageShift);
    }

    @Override
    public final ByteBuffer buffer(long pageNo, int pages) {
        int window = (int) (pageNo >>> windowPageShift);
        ByteBuffer memory = windowBuffers[window].duplicate();
        int start = (int) ((pageNo & windowPageMask) << pageShift);
        memory.limit(start + (pages << pageShift)).position(start);
        return memory.slice();
    }

    /** Installs (or replaces) the memory of window {@code index}. */
    final synchronized void setWindow(int index, ByteBuffer memory) {
        keepAlive.add(memory);
        long[] current = windowAddresses;
        long[] next = Arrays.copyOf(current, Math.max(current.length, index + 1));
        next[index] = BufferUtil.address(memory);
        ByteBuffer[] buffers = Arrays.copyOf(windowBuffers, next.length);
        buffers[index] = memory;
        windowBuffers = buffers;
        windowAddresses = next;
    }

    /** Forgets windows from {@code index} on (their memory stays reachable, see {@link #keepAlive}). */
    final synchronized void dropWindowsFrom(int index) {
        long[] current = windowAddresses;
        if (index < current.length) {
            windowBuffers = Arrays.copyOf(windowBuffers, index);
            windowAddresses = Arrays.copyOf(current, index);
        }
    }

    final int windowCount() {
        return windowAddresses.length;
    }

    final void setPageCount(long pageCount) {
        this.pageCount = pageCount;
    }

    final void checkOpen() {
        if (closed) {
            throw new IllegalStateException("page store " + describe() + " is closed");
        }
    }

    final boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }
}
