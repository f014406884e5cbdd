// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import org.agrona.BufferUtil;
import static org.agrona.UnsafeAccess.UNSAFE;

/**
 * Pages in off-heap memory that grows in regions as the store asks (at least 1 MiB). Nothing is durable. The
 * memory is direct buffers, so its total is bounded by {@code -XX:MaxDirectMemorySize} (by default
 * the heap size).
 */
public final class MemoryPageStore extends RegionPageStore {
    private static final long MAX_RUN_BYTES = 64L << 20;

    public MemoryPageStore(int pageSize) {
        super(pageSize);
    }

    @Override
    public synchronized void extend(long newPageCount) {
        checkOpen();
        coverWithMemory(newPageCount);
        if (newPageCount > pageCount()) {
            setPageCount(newPageCount);
        }
    }

    @Override
    public synchronized void truncate(long newPageCount) {
        checkOpen();
        if (newPageCount < pageCount()) {
            // The memory stays allocated for a later growth; pages past the end are simply unused.
            setPageCount(newPageCount);
        }
    }

    @Override
    public int maxRunPages() {
        return (int) (MAX_RUN_BYTES / pageSize());
    }

    @Override
    public void write(long pageNo, java.nio.ByteBuffer source) {
        int length = source.remaining();
        if (source.isDirect()) {
            UNSAFE.copyMemory(BufferUtil.address(source) + source.position(), address(pageNo), length);
        } else {
            UNSAFE.copyMemory(source.array(), UNSAFE.arrayBaseOffset(byte[].class) + source.arrayOffset()
                    + source.position(), null, address(pageNo), length);
        }
        source.position(source.limit());
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
    public String describe() {
        return "memory";
    }

    @Override
    public void close() {
        markClosed();
    }
}
