// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.CorruptionException;
import io.mvbt.btree.PageHeader;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.PageValidator;
import io.mvbt.btree.TreeLimits;
import io.mvbt.pagestore.PageStore;

/**
 * Reads pages for snapshots and transactions. A page read from storage is validated the first
 * time (header against the pointer, checksum, structure) and then remembered in
 * {@link VerifiedPages}; pages of a memory store were all written by this process and are trusted.
 * The page type is checked on every read, so a pointer to the wrong kind of page never goes
 * unnoticed.
 */
final class PageAccess implements PageReader {
    private final PageStore store;
    private final Writeback writeback;
    private final Checksums checksums;
    private final TreeLimits limits;
    private final VerifiedPages verified;
    private final int maxRunPages;
    /**
     * Accept pages without a checksum above {@link #sealedThrough} (pages of commits not yet
     * checkpointed, which other processes read, and which recovery seals after a process crash).
     */
    private final boolean trustUnsealed;
    /**
     * The revision through which every page read through this access carries a checksum: the
     * durable revision of the revision read (or that revision itself, if a SYNC commit sealed it).
     * A page's lifetime is the interval of revisions from the one that wrote it to the one that
     * freed it, so a page reached from revision r and written at or before that durable revision
     * d (d <= r) is reached from d too, and d's checkpoint sealed it. A page at or below the bound
     * without a checksum is therefore damage: the SEALED flag lies outside the checksum, and a
     * flag cleared by damage must not turn a page into a trusted one. -1: no bound.
     */
    private final long sealedThrough;

    PageAccess(PageStore store, Writeback writeback, Checksums checksums, TreeLimits limits, VerifiedPages verified,
            int maxRunPages, boolean trustUnsealed) {
        this(store, writeback, checksums, limits, verified, maxRunPages, trustUnsealed, -1);
    }

    private PageAccess(PageStore store, Writeback writeback, Checksums checksums, TreeLimits limits,
            VerifiedPages verified, int maxRunPages, boolean trustUnsealed, long sealedThrough) {
        this.store = store;
        this.writeback = writeback;
        this.checksums = checksums;
        this.limits = limits;
        this.verified = verified;
        this.maxRunPages = maxRunPages;
        this.trustUnsealed = trustUnsealed;
        this.sealedThrough = sealedThrough;
    }

    PageAccess withTrustUnsealed() {
        return new PageAccess(store, writeback, checksums, limits, verified, maxRunPages, true, sealedThrough);
    }

    /** A reader that validates every page it reads, whatever the cache says (for the checker). */
    PageAccess uncached() {
        return new PageAccess(store, writeback, checksums, limits, verified == null ? null : new VerifiedPages(), maxRunPages,
                trustUnsealed, sealedThrough);
    }

    /** This access for the pages of a revision whose pages are sealed through {@code revision}. */
    PageAccess through(long revision) {
        return revision == sealedThrough ? this
                : new PageAccess(store, writeback, checksums, limits, verified, maxRunPages, trustUnsealed, revision);
    }

    /**
     * For recovery weighing a meta: requires seals through {@code revision} and accepts unsealed
     * pages above it only if {@code trustUnsealedAbove}. The cache is shared: a page that verified
     * under one meta's rule holds under the rule of any older meta, which is never stricter.
     */
    PageAccess forMeta(long revision, boolean trustUnsealedAbove) {
        return new PageAccess(store, writeback, checksums, limits, verified, maxRunPages, trustUnsealedAbove, revision);
    }

    long sealedThrough() {
        return sealedThrough;
    }

    @Override
    public int pageSize() {
        return limits.pageSize;
    }

    TreeLimits limits() {
        return limits;
    }

    @Override
    public boolean prefetches() {
        return writeback.prefetches();
    }

    @Override
    public void prefetch(long[] pageNos, int count) {
        writeback.prefetch(pageNos, count);
    }

    PageStore store() {
        return store;
    }

    Checksums checksums() {
        return checksums;
    }

    @Override
    public long page(long pageNo, long revision, int type) {
        if (pageNo < PageStore.META_SLOTS || pageNo >= store.pageCount()) {
            throw new CorruptionException(pageNo, "page number outside the store (" + store.pageCount()
                    + " pages), reached as a " + PageHeader.typeName(type) + " page of revision " + revision);
        }
        long address = store.address(pageNo);
        if (verified == null || verified.get(pageNo) == revision) {
            if (PageHeader.type(address) != type) {
                PageValidator.checkHeader(address, pageNo, revision, type);
            }
            return type == PageHeader.TYPE_OVERFLOW ? runAddress(pageNo, address) : address;
        }
        validate(pageNo, revision, type, address);
        verified.set(pageNo, revision);
        return type == PageHeader.TYPE_OVERFLOW ? runAddress(pageNo, address) : address;
    }

    /** Where an overflow run is contiguous: a run written by another process may cross our ranges. */
    private long runAddress(long pageNo, long address) {
        int pages = PageValidator.overflowPages(address);
        return pages == 1 ? address : store.runAddress(pageNo, pages);
    }

    private void validate(long pageNo, long revision, int type, long address) {
        PageValidator.checkHeader(address, pageNo, revision, type);
        int pages = 1;
        if (type == PageHeader.TYPE_OVERFLOW) {
            PageValidator.checkOverflow(address, pageNo, limits.pageSize, maxRunPages);
            pages = PageValidator.overflowPages(address);
            if (pageNo + pages > store.pageCount()) {
                throw new CorruptionException(pageNo, "overflow run of " + pages + " pages runs past the store");
            }
        }
        if (PageHeader.isSealed(address)) {
            int expected = PageHeader.checksum(address);
            int actual = checksums.ofRun(pageNo, pages);
            if (expected != actual) {
                throw new CorruptionException(pageNo, String.format(
                        "checksum mismatch (stored %08x, computed %08x) in a %s page", expected, actual,
                        PageHeader.typeName(type)));
            }
        } else if (revision <= sealedThrough) {
            throw new CorruptionException(pageNo, "has no checksum, though every page of revision " + sealedThrough
                    + " and older that the revision read reaches is sealed: its SEALED flag was cleared (damage)");
        } else if (!trustUnsealed) {
            throw new CorruptionException(pageNo, "has no checksum: it was written after the last durable commit"
                    + " and cannot be trusted");
        }
        if (type == PageHeader.TYPE_LEAF || type == PageHeader.TYPE_BRANCH) {
            PageValidator.checkNode(address, pageNo, limits);
        }
    }
}
