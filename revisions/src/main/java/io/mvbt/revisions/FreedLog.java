// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import org.agrona.concurrent.AtomicBuffer;

import io.mvbt.pagestore.local.LockFile;

/**
 * The runs of pages that commits freed, with the revision that wrote and the revision that freed
 * each, kept in the lock file for writers in several processes that take turns. A process
 * starting its turn reads what the others freed since its last turn, so those pages wait for
 * exactly the snapshots that can reach them, as its own do. A ring: a reader that fell further
 * behind than it holds learns so, and assumes the worst for the pages it cannot account for.
 * Only the process holding the writer lock appends or reads.
 *
 * <pre>
 * entry (32 bytes): u64 page, u64 pages, u64 written, u64 freed
 * </pre>
 */
final class FreedLog {
    private final AtomicBuffer header;
    private final AtomicBuffer ring;
    private final long capacity;

    /** Receives one entry. */
    interface Visitor {
        void freed(long pageNo, int pages, long written, long freed);
    }

    FreedLog(LockFile lockFile) {
        this.header = lockFile.header();
        this.ring = lockFile.freedLog();
        this.capacity = ring.capacity() / LockFile.FREED_ENTRY_BYTES;
    }

    /** Entries ever appended. */
    long sequence() {
        return header.getLongVolatile(LockFile.FREED_SEQUENCE);
    }

    void append(long pageNo, int pages, long written, long freed) {
        long s = sequence();
        int at = (int) (s % capacity) * LockFile.FREED_ENTRY_BYTES;
        ring.putLong(at, pageNo);
        ring.putLong(at + 8, pages);
        ring.putLong(at + 16, written);
        ring.putLong(at + 24, freed);
        header.putLongOrdered(LockFile.FREED_SEQUENCE, s + 1);
    }

    /**
     * Visits the entries appended from sequence {@code from} on, oldest first; returns false if
     * some of them were overwritten already (only the newest are visited then).
     */
    boolean read(long from, Visitor visitor) {
        long to = sequence();
        boolean complete = to - from <= capacity;
        for (long s = complete ? from : to - capacity; s < to; s++) {
            int at = (int) (s % capacity) * LockFile.FREED_ENTRY_BYTES;
            visitor.freed(ring.getLong(at), (int) ring.getLong(at + 8), ring.getLong(at + 16), ring.getLong(at + 24));
        }
        return complete;
    }
}
