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
    /** Null unless the store syncs every commit by default (see {@link PrivatePages}). */
    private final PrivatePages privatePages;
    /** The sole writer's pages held in a shadow (see {@link DirtyPages}); null or detached for others. */
    private final DirtyPages dirty;
    /** What a failed positional write becomes: the store decides whether it can write again. */
    private final Function<StorageException, RuntimeException> writeFailed;
    private long revision;

    TxnPages(PageStore store, PageAccess access, FreeSpace space, VerifiedPages verified, PrivatePages privatePages,
            DirtyPages dirty, Function<StorageException, RuntimeException> writeFailed) {
        this.store = store;
        this.access = access;
        this.space = space;
        this.verified = verified;
        this.maxRunPages = maxRunPages(store);
        this.privatePages = privatePages;
        this.dirty = dirty;
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
        if (privatePages != null) {
            privatePages.begin();
        }
    }

    /** Writes the pages built in private memory to the file; the commit calls it before anything reads the file. */
    void writePrivate() {
        if (privatePages != null) {
            try {
                privatePages.writeAll();
            } catch (StorageException e) {
                throw writeFailed.apply(e);
            }
        }
    }

    @Override
    public int pageSize() {
        return store.pageSize();
    }

    @Override
    public long page(long pageNo, long rev, int type) {
        if (rev == revision && privatePages != null) {
            long address = privatePages.address(pageNo);
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
        if (pages > 1 && dirty != null) {
            // A run is written in the file: no slot may stand for one of its pages.
            dirty.drop(pageNo, pages);
        }
        if (pages == 1 && (dirty == null || dirty.take(pageNo, revision) == 0) && privatePages != null) {
            privatePages.take(pageNo);
        }
        return pageNo;
    }

    @Override
    public int maxRunPages() {
        return maxRunPages;
    }

    @Override
    public long address(long pageNo) {
        if (privatePages != null) {
            long address = privatePages.address(pageNo);
            if (address != 0) {
                return address;
            }
        }
        return store.address(pageNo);
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
        if (privatePages != null) {
            // A run of one page was taken as private by allocate: the run written here replaces it.
            privatePages.drop(pageNo, pages);
        }
        if (dirty != null && pages == 1) {
            // A page allocated alone was given a slot; allocate dropped those of longer runs.
            dirty.drop(pageNo, 1);
        }
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
