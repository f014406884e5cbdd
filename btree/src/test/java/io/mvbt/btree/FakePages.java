// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import java.util.ArrayDeque;
import java.util.BitSet;

import io.mvbt.CorruptionException;
import io.mvbt.pagestore.local.MemoryPageStore;
import io.mvbt.pagestore.PageStore;

/**
 * A page context for tree tests: pages in memory, every read validated, frees checked for double
 * frees, and each "commit" moves to a new revision so that copy-on-write is exercised.
 */
final class FakePages implements PageWriter {
    final MemoryPageStore store;
    final TreeLimits limits;
    private final BitSet used = new BitSet();
    private final ArrayDeque<Long> freed = new ArrayDeque<>();
    private long revision = 1;
    long allocations;

    FakePages(int pageSize) {
        store = new MemoryPageStore(pageSize);
        store.extend(PageStore.META_SLOTS);
        used.set(0, PageStore.META_SLOTS);
        limits = new TreeLimits(pageSize);
    }

    void nextRevision() {
        revision++;
    }

    int pagesInUse() {
        return used.cardinality() - PageStore.META_SLOTS;
    }

    @Override
    public int pageSize() {
        return store.pageSize();
    }

    @Override
    public long page(long pageNo, long rev, int type) {
        if (pageNo < PageStore.META_SLOTS || pageNo >= store.pageCount() || !used.get((int) pageNo)) {
            throw new CorruptionException(pageNo, "not an allocated page");
        }
        long address = store.address(pageNo);
        PageValidator.checkHeader(address, pageNo, rev, type);
        if (rev == revision) {
            // As in a store: the writer trusts its own pages; TreeChecker is what checks them.
            return address;
        }
        if (type == PageHeader.TYPE_OVERFLOW) {
            PageValidator.checkOverflow(address, pageNo, pageSize(), maxRunPages());
        } else {
            PageValidator.checkNode(address, pageNo, limits);
        }
        return address;
    }

    @Override
    public long revision() {
        return revision;
    }

    @Override
    public long allocate(int pages) {
        allocations++;
        long start = used.nextClearBit(PageStore.META_SLOTS);
        while (true) {
            if (start + pages > store.pageCount()) {
                store.extend(start + pages + 64);
            }
            long end = used.nextSetBit((int) start);
            boolean fits = end < 0 || end - start >= pages;
            boolean oneRange = start + pages <= store.runEnd(start);
            if (fits && oneRange) {
                break;
            }
            start = oneRange ? used.nextClearBit((int) end) : store.runEnd(start);
        }
        used.set((int) start, (int) start + pages);
        return start;
    }

    @Override
    public int maxRunPages() {
        return 64;
    }

    @Override
    public long address(long pageNo) {
        return store.address(pageNo);
    }

    @Override
    public void free(long pageNo, long rev, int pages) {
        for (long p = pageNo; p < pageNo + pages; p++) {
            if (!used.get((int) p)) {
                throw new AssertionError("double free of page " + p);
            }
        }
        long address = store.address(pageNo);
        if (PageHeader.revision(address) != rev) {
            throw new AssertionError("free of page " + pageNo + " with revision " + rev + " but it holds "
                    + PageHeader.revision(address));
        }
        used.clear((int) pageNo, (int) (pageNo + pages));
        freed.add(pageNo);
    }

    private final java.nio.ByteBuffer scratch = java.nio.ByteBuffer.allocateDirect(64 * 65536 + 4096);
    @Override
    public long runScratch(int bytes) {
        return org.agrona.BufferUtil.address(scratch);
    }

    @Override
    public void writeRun(long pageNo, int pages) {
        store.write(pageNo, scratch.duplicate().limit(pages * pageSize()).position(0));
    }
}
