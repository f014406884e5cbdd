// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.function.Function;

import io.mvbt.StorageException;
import io.mvbt.btree.PageHeader;
import io.mvbt.btree.PageWriter;
import io.mvbt.pagestore.PageStore;

/** The page context of the write transaction: reads through {@link PageAccess}, allocates from {@link FreeSpace}. */
final class TxnPages implements PageWriter {
    private final PageStore store;
    /** Reads the pages of the transaction's base revision, with that revision's seal bound. */
    private PageAccess access;
    private final FreeSpace space;
    private final VerifiedPages verified;
    private final int maxRunPages;
    /** Where the pages the transaction allocates live until they are durable. */
    private final PagePath path;
    /** What a failed positional write becomes: the store decides whether it can write again. */
    private final Function<StorageException, RuntimeException> writeFailed;
    private long revision;

    TxnPages(PageStore store, PageAccess access, FreeSpace space, VerifiedPages verified, PagePath path,
            Function<StorageException, RuntimeException> writeFailed) {
        this.store = store;
        this.access = access;
        this.space = space;
        this.verified = verified;
        this.maxRunPages = maxRunPages(store);
        this.path = path;
        this.writeFailed = writeFailed;
    }

    /** Overflow runs stay at most 64 MiB (the store's limit), so a large value never needs a huge free run. */
    static int maxRunPages(PageStore store) {
        return store.maxRunPages();
    }

    void begin(long revision, PageAccess baseReader) {
        this.revision = revision;
        this.access = baseReader;
        space.begin(revision);
        path.begin();
    }

    /** Writes the pages built away from storage; the commit calls it before anything reads storage. */
    void writeBuilt() {
        try {
            path.writeBuilt();
        } catch (StorageException e) {
            throw writeFailed.apply(e);
        }
    }

    @Override
    public int pageSize() {
        return store.pageSize();
    }

    @Override
    public long page(long pageNo, long rev, int type) {
        if (rev == revision) {
            long address = path.builtAddress(pageNo);
            if (address != 0) {
                return address;
            }
        }
        return access.page(pageNo, rev, type);
    }

    @Override
    public long revision() {
        return revision;
    }

    @Override
    public long allocate(int pages) {
        long pageNo = space.allocate(pages);
        if (verified != null) {
            // Written by this process: trusted from now on, never validated against a checksum.
            verified.set(pageNo, revision);
        }
        path.allocated(pageNo, pages, revision);
        return pageNo;
    }

    @Override
    public int maxRunPages() {
        return maxRunPages;
    }

    @Override
    public long address(long pageNo) {
        long address = path.builtAddress(pageNo);
        return address != 0 ? address : store.address(pageNo);
    }

    @Override
    public void free(long pageNo, long rev, int pages) {
        space.free(pageNo, rev, pages);
    }

    /** Scratch for runs of pages, grown as needed (up to the largest run, 64 MiB). */
    private java.nio.ByteBuffer runScratch = org.agrona.BufferUtil.allocateDirectAligned(1 << 16, 64);

    @Override
    public long runScratch(int bytes) {
        if (runScratch.capacity() < bytes) {
            runScratch = org.agrona.BufferUtil.allocateDirectAligned(Math.max(bytes, runScratch.capacity() * 2), 64);
        }
        return org.agrona.BufferUtil.address(runScratch);
    }

    @Override
    public void writeRun(long pageNo, int pages) {
        path.writingRun(pageNo, pages);
        int bytes = pages * store.pageSize();
        long address = org.agrona.BufferUtil.address(runScratch);
        if (store.durable()) {
            PageHeader.seal(address, access.checksums().ofBuffer(runScratch.duplicate().limit(bytes).position(0)));
        }
        try {
            store.write(pageNo, runScratch.duplicate().limit(bytes).position(0));
        } catch (StorageException e) {
            throw writeFailed.apply(e);
        }
    }
}
