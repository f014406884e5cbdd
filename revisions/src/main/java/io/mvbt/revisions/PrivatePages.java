// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;

import io.mvbt.btree.PageHeader;
import io.mvbt.pagestore.PageStore;

/**
 * Pages of the write transaction built in private memory and written to the file at commit, sealed,
 * with one positional write each. Used where every commit syncs: each sync cleans the pages it
 * wrote, and the first store into a cleaned page of the mapping is a write fault (dear on virtual
 * machines), while a positional write of a page costs a fraction of one and leaves less for the
 * sync to write back (whole folios, for pages dirtied through the mapping).
 *
 * <p>It takes at most {@code capacity} pages per transaction and never gives one back before the
 * commit, so an address it returned stays valid for the whole transaction; pages past the
 * capacity are written through the mapping as usual.
 */
final class PrivatePages {
    /** Private memory per transaction; larger transactions write the rest through the mapping. */
    static final int BYTES = 4 << 20;

    private final PageStore store;
    private final Checksums checksums;
    private final int pageSize;
    private final int capacity;
    private ByteBuffer memory;
    /** Page number held in each slot, or -1 for a slot dropped because the page was written as a run. */
    private final long[] pageNos;
    private int count;
    /** Open addressing from page number + 1 (0: empty) to slot, at most half full. */
    private final long[] keys;
    private final int[] slots;
    /** Where each slot's key sits in {@code keys}, to empty the table without probing. */
    private final int[] positions;
    private final int mask;
    private boolean taking;

    PrivatePages(PageStore store, Checksums checksums) {
        this.store = store;
        this.checksums = checksums;
        this.pageSize = store.pageSize();
        this.capacity = Math.max(16, BYTES / pageSize);
        this.pageNos = new long[capacity];
        this.keys = new long[Integer.highestOneBit(capacity) * 4];
        this.slots = new int[keys.length];
        this.positions = new int[capacity];
        this.mask = keys.length - 1;
    }

    /** Starts a transaction with no private pages. */
    void begin() {
        clear();
        taking = true;
    }

    /** Gives {@code pageNo}, just allocated, private memory if any is left; returns its address or 0. */
    long take(long pageNo) {
        if (!taking) {
            return 0;
        }
        int at = find(pageNo);
        if (keys[at] != 0) {
            int slot = slots[at];
            pageNos[slot] = pageNo;
            return addressOf(slot);
        }
        if (count == capacity) {
            return 0;
        }
        if (memory == null) {
            memory = BufferUtil.allocateDirectAligned(capacity * pageSize, 4096);
        }
        keys[at] = pageNo + 1;
        slots[at] = count;
        positions[count] = at;
        pageNos[count] = pageNo;
        return addressOf(count++);
    }

    /** Address of {@code pageNo} if it is private, else 0. */
    long address(long pageNo) {
        if (count == 0) {
            return 0;
        }
        int at = find(pageNo);
        if (keys[at] == 0) {
            return 0;
        }
        int slot = slots[at];
        return pageNos[slot] == pageNo ? addressOf(slot) : 0;
    }

    /** The transaction wrote these pages to the file itself (a run): their private copies must not follow. */
    void drop(long pageNo, int pages) {
        if (count == 0) {
            return;
        }
        for (long p = pageNo; p < pageNo + pages; p++) {
            int at = find(p);
            if (keys[at] != 0) {
                pageNos[slots[at]] = -1;
            }
        }
    }

    /**
     * Seals every private page and writes it to the file; from then on the transaction writes
     * through the mapping (the free map's own pages, allocated after this, for one).
     */
    void writeAll() {
        taking = false;
        for (int slot = 0; slot < count; slot++) {
            long pageNo = pageNos[slot];
            if (pageNo < 0) {
                continue;
            }
            ByteBuffer page = memory.duplicate().position(slot * pageSize).limit((slot + 1) * pageSize).slice();
            PageHeader.seal(addressOf(slot), checksums.ofBuffer(page));
            store.write(pageNo, page.position(0));
        }
        clear();
    }

    /** Forgets the private pages (written, or of a transaction that aborted). */
    void clear() {
        for (int slot = 0; slot < count; slot++) {
            keys[positions[slot]] = 0;
        }
        count = 0;
        taking = false;
    }

    private int find(long pageNo) {
        int at = (int) (mix(pageNo) & mask);
        while (keys[at] != 0 && keys[at] != pageNo + 1) {
            at = (at + 1) & mask;
        }
        return at;
    }

    private long addressOf(int slot) {
        return BufferUtil.address(memory) + (long) slot * pageSize;
    }

    private static long mix(long x) {
        x *= 0x9E3779B97F4A7C15L;
        return x ^ (x >>> 32);
    }
}
