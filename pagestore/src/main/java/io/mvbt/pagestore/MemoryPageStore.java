package io.mvbt.pagestore;


import org.agrona.BufferUtil;

/**
 * Pages in off-heap memory that grows in windows of 16 MiB. Nothing is durable. The memory is
 * direct buffers, so its total is bounded by {@code -XX:MaxDirectMemorySize} (by default the heap size).
 */
public final class MemoryPageStore extends WindowedPageStore {
    private static final int WINDOW_BYTES = 16 << 20;

    public MemoryPageStore(int pageSize) {
        super(pageSize, Math.max(WINDOW_BYTES, pageSize));
    }

    @Override
    public synchronized void extend(long newPageCount) {
        checkOpen();
        if (newPageCount <= pageCount()) {
            return;
        }
        long bytes = newPageCount * pageSize();
        int windowsNeeded = (int) ((bytes + windowBytes() - 1) / windowBytes());
        for (int i = windowCount(); i < windowsNeeded; i++) {
            setWindow(i, BufferUtil.allocateDirectAligned((int) windowBytes(), MIN_PAGE_SIZE));
        }
        setPageCount(newPageCount);
    }

    @Override
    public synchronized void truncate(long newPageCount) {
        checkOpen();
        if (newPageCount < pageCount()) {
            setPageCount(newPageCount);
            int windowsNeeded = (int) ((newPageCount * pageSize() + windowBytes() - 1) / windowBytes());
            dropWindowsFrom(windowsNeeded);
        }
    }

    @Override
    public void written(long pageNo, int pages) {
        // Memory needs no bookkeeping of writes.
    }

    @Override
    public void sync() {
        // Nothing is durable, so there is nothing to wait for.
    }

    @Override
    public boolean durable() {
        return false;
    }

    @Override
    public boolean reusesPages() {
        return true;
    }

    @Override
    public String describe() {
        return "memory";
    }

    @Override
    public void close() {
        markClosed();
    }
}
