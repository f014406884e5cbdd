// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.ReadersFullException;
import io.mvbt.pagestore.local.LockFile;

/**
 * The revisions that open snapshots hold, one cache-line slot each, in the reader table of the
 * store's {@link LockFile} (shared by every process that opens the store) or, for a store in
 * memory, in off-heap memory of its own. Opening a snapshot claims a free slot with one
 * compare-and-set and publishes a revision; the writer only reads the slots, so neither ever waits
 * for the other. A slot names its process, so slots of a process that died can be cleared.
 *
 * <pre>
 * slot (64 bytes):  0 u64 revision (-1: none)
 *                   8 u64 owner: pid &lt;&lt; 8 | kind (0: free; kind 1 snapshot, 2 checkpoint,
 *                         3 being cleared by that process)
 *                   16 u64 opened (epoch ms)   24 u64 thread id   32 u64 flags (slow-reader state)
 *                   40 u64 start of the owning process (epoch ms, 0: not known yet)
 * </pre>
 */
final class ReaderRegistry {
    static final int SLOT_BYTES = LockFile.SLOT_BYTES;
    static final int REVISION = 0;
    static final int OWNER = 8;
    static final int OPENED = 16;
    static final int THREAD = 24;
    static final int FLAGS = 32;
    static final int PROCESS_START = 40;
    static final long SNAPSHOT = 1;
    static final long CHECKPOINT = 2;
    /** Kind of a slot whose dead holder a clearer has taken the slot from, while it resets the slot. */
    static final long CLEARING = 3;
    /** Flag: the slow-reader policy has seen this holder (it is told of each once). */
    static final long REPORTED = 1;
    /** Flag: the slow-reader policy expired this snapshot, or its remote registration lapsed. */
    static final long EXPIRED = 2;

    private final AtomicBuffer header;
    private final AtomicBuffer table;
    private final int capacity;
    private final String where;
    /** This process's snapshots' revisions by slot, for the integrity checker. */
    private final Revision[] revisions;
    /** Names of the threads of this process that claimed the slots, for reports of slow readers. */
    private final String[] threadNames;
    /** Whether a process still runs; replaced by tests to interleave clearers. */
    private Liveness liveness = ProcessLiveness::alive;

    /** Whether the process {@code pid} that started at {@code start} (0: unknown) still runs. */
    interface Liveness {
        boolean alive(long pid, long start);
    }

    private ReaderRegistry(AtomicBuffer header, AtomicBuffer table, int capacity, String where) {
        this.header = header;
        this.table = table;
        this.capacity = capacity;
        this.where = where;
        this.revisions = new Revision[capacity];
        this.threadNames = new String[capacity];
    }

    /** A registry of this process alone. */
    static ReaderRegistry inMemory(int slots) {
        UnsafeBuffer header = new UnsafeBuffer(BufferUtil.allocateDirectAligned(LockFile.HEADER_BYTES, 64));
        UnsafeBuffer table = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slots * SLOT_BYTES, 64));
        for (int s = 0; s < slots; s++) {
            table.putLong(s * SLOT_BYTES + REVISION, -1);
        }
        return new ReaderRegistry(header, table, slots, "this store");
    }

    /** The registry shared by every process that opens the store of {@code lockFile}. */
    static ReaderRegistry shared(LockFile lockFile) {
        return new ReaderRegistry(lockFile.header(), lockFile.table(), lockFile.slots(), lockFile.path().toString());
    }

    /** Claims a free slot for {@code kind}; the slot holds no revision yet. */
    int claim(long kind) {
        int slot = tryClaim(kind);
        if (slot < 0 && clearStale() > 0) {
            slot = tryClaim(kind);
        }
        if (slot < 0) {
            throw new ReadersFullException("all " + capacity + " reader slots of " + where + " are taken by open "
                    + "snapshots; close some, or open the store with a larger StoreOptions.maxReaders (it applies "
                    + "when no process has the store open)");
        }
        return slot;
    }

    private int tryClaim(long kind) {
        long owner = ProcessLiveness.PID << 8 | kind;
        // Lowest free slot first, so that the writer's scan stays short.
        for (int slot = 0; slot < capacity; slot++) {
            int off = slot * SLOT_BYTES;
            if (table.getLongVolatile(off + OWNER) == 0 && table.compareAndSetLong(off + OWNER, 0, owner)) {
                Thread thread = Thread.currentThread();
                table.putLong(off + OPENED, System.currentTimeMillis());
                table.putLong(off + THREAD, thread.getId());
                table.putLongVolatile(off + PROCESS_START, ProcessLiveness.START);
                // A new generation in the flags' upper bits, so that a mark meant for the slot's
                // previous holder cannot land on this one.
                table.putLongVolatile(off + FLAGS, ((table.getLong(off + FLAGS) >>> 8) + 1) << 8);
                threadNames[slot] = thread.getName();
                raiseHighWater(slot + 1);
                return slot;
            }
        }
        return -1;
    }

    /**
     * Publishes the revision a slot holds. The caller re-reads the newest revision afterwards and
     * publishes again if it moved: the writer publishes a revision before it reads the slots, so one
     * of the two always sees the other.
     */
    void hold(int slot, Revision revision) {
        table.putLongVolatile(slot * SLOT_BYTES + REVISION, revision.revision);
        revisions[slot] = revision;
    }

    /** Releases every slot this registry holds a revision in (its store is closing). */
    void releaseAll() {
        for (int slot = 0; slot < revisions.length; slot++) {
            if (revisions[slot] != null) {
                release(slot);
            }
        }
    }

    void release(int slot) {
        int off = slot * SLOT_BYTES;
        revisions[slot] = null;
        table.putLongVolatile(off + REVISION, -1);
        table.putLongVolatile(off + PROCESS_START, 0);
        table.putLongOrdered(off + OWNER, 0);
    }

    /**
     * Expires the snapshots of this process that hold one of {@code revisions} (ascending); returns
     * how many.
     */
    int expireSnapshotsOf(long[] revisions) {
        int expired = 0;
        int limit = highWater();
        for (int slot = 0; slot < limit; slot++) {
            int off = slot * SLOT_BYTES;
            long flags = table.getLongVolatile(off + FLAGS);
            if (table.getLongVolatile(off + OWNER) != (ProcessLiveness.PID << 8 | SNAPSHOT)
                    || java.util.Arrays.binarySearch(revisions, table.getLongVolatile(off + REVISION)) < 0) {
                continue;
            }
            while (true) {
                if (table.compareAndSetLong(off + FLAGS, flags, flags | EXPIRED)) {
                    expired++;
                    break;
                }
                long now = table.getLongVolatile(off + FLAGS);
                if (now >>> 8 != flags >>> 8) {
                    // Released and claimed again meanwhile: a new snapshot, not one of the lapse.
                    break;
                }
                flags = now;
            }
        }
        return expired;
    }

    /** Takes an expiry back from a slot whose snapshot is not open yet. */
    void unexpire(int slot) {
        int off = slot * SLOT_BYTES;
        long flags;
        do {
            flags = table.getLongVolatile(off + FLAGS);
        } while ((flags & EXPIRED) != 0 && !table.compareAndSetLong(off + FLAGS, flags, flags & ~EXPIRED));
    }

    /**
     * The address of the flags word of {@code slot}, whose {@link #EXPIRED} bit says whether its
     * snapshot expired (see {@link SlowReaderPolicy} and {@link RemoteReaderPeers}), for the snapshot,
     * which reads it on every operation. The table's memory lives as long as this registry: a direct
     * buffer or the lock file's mapping, never unmapped by hand.
     */
    long flagsAddress(int slot) {
        if (table.byteArray() != null) {
            throw new IllegalStateException("the reader table is not in direct memory");
        }
        return table.addressOffset() + (long) slot * SLOT_BYTES + FLAGS;
    }

    /** Announces the newest meta, {@code sequence << 2 | slot}, to readers in other processes. */
    void publish(long meta) {
        header.putLongVolatile(LockFile.PUBLISHED, meta);
    }

    /** The newest meta announced, or 0 if none was since the table was initialized. */
    long published() {
        return header.getLongVolatile(LockFile.PUBLISHED);
    }

    /**
     * Frees the slots of processes that died holding them, so that they pin nothing any more.
     * Returns how many it freed.
     */
    int clearStale() {
        int limit = highWater();
        int cleared = 0;
        Map<List<Long>, Boolean> alive = new HashMap<>();
        for (int slot = 0; slot < limit; slot++) {
            int off = slot * SLOT_BYTES;
            long owner = table.getLongVolatile(off + OWNER);
            long pid = owner >>> 8;
            if (owner == 0 || pid == ProcessLiveness.PID) {
                continue;
            }
            // A slot being cleared holds its dead reader's start, not its clearer's: only the pid counts.
            long start = (owner & 0xff) == CLEARING ? 0 : table.getLongVolatile(off + PROCESS_START);
            if (alive.computeIfAbsent(List.of(pid, start), k -> liveness.alive(pid, start))) {
                continue;
            }
            // Taken before it is reset: reset first, another clearer could free it meanwhile and a
            // new reader claim it, whose revision the reset would then wipe.
            long clearing = ProcessLiveness.PID << 8 | CLEARING;
            if (table.compareAndSetLong(off + OWNER, owner, clearing)) {
                table.putLongVolatile(off + REVISION, -1);
                table.putLongVolatile(off + PROCESS_START, 0);
                // Fails only if another clearer took the slot from this one, judging it dead.
                table.compareAndSetLong(off + OWNER, clearing, 0);
                cleared++;
            }
        }
        return cleared;
    }

    /** Replaces the liveness test (for tests that interleave clearers). */
    void liveness(Liveness test) {
        this.liveness = test;
    }

    /** The newest revision below {@code revision} that a slot holds, or -1. */
    long newestBelow(long revision) {
        int limit = highWater();
        long newest = -1;
        for (int slot = 0; slot < limit; slot++) {
            long held = table.getLongVolatile(slot * SLOT_BYTES + REVISION);
            if (held >= 0 && held < revision) {
                newest = Math.max(newest, held);
            }
        }
        return newest;
    }

    /** Every holder now, {@code latest} being the newest revision. */
    List<ReaderInfo> readers(long latest) {
        List<ReaderInfo> out = new ArrayList<>();
        long now = System.currentTimeMillis();
        int limit = highWater();
        for (int slot = 0; slot < limit; slot++) {
            ReaderInfo info = info(slot, latest, now, true);
            if (info != null) {
                out.add(info);
            }
        }
        return out;
    }

    /**
     * Hands each snapshot that {@code policy} finds slow, and that it has not seen, to its handler,
     * and marks it seen (and expired if the handler says so).
     */
    void reportSlow(SlowReaderPolicy policy, long latest, java.util.function.LongPredicate pinnedAnyway) {
        long now = System.currentTimeMillis();
        int limit = highWater();
        for (int slot = 0; slot < limit; slot++) {
            int off = slot * SLOT_BYTES;
            long flags = table.getLongVolatile(off + FLAGS);
            if ((flags & REPORTED) != 0 || (table.getLongVolatile(off + OWNER) & 0xff) != SNAPSHOT) {
                continue;
            }
            ReaderInfo info = info(slot, latest, now, false);
            // A snapshot of a revision held anyway (a named one) keeps no page from reuse, however old.
            if (info == null || !policy.isSlow(info.lag(), info.ageMillis()) || pinnedAnyway.test(info.revision())) {
                continue;
            }
            boolean expired = policy.handler().expire(info);
            long mark = REPORTED | (expired ? EXPIRED : 0);
            StoreEvents.SlowReader event = new StoreEvents.SlowReader();
            if (event.shouldCommit()) {
                event.revision = info.revision();
                event.lag = info.lag();
                event.ageMillis = info.ageMillis();
                event.pid = info.pid();
                event.threadId = info.threadId();
                event.expired = expired;
                event.commit();
            }
            // Fails if the slot was released and claimed again meanwhile (a new generation).
            table.compareAndSetLong(off + FLAGS, flags, flags | mark);
        }
    }

    private ReaderInfo info(int slot, long latest, long now, boolean checkLiveness) {
        int off = slot * SLOT_BYTES;
        long revision = table.getLongVolatile(off + REVISION);
        long owner = table.getLongVolatile(off + OWNER);
        if (revision < 0 || owner == 0) {
            return null;
        }
        long pid = owner >>> 8;
        boolean ours = pid == ProcessLiveness.PID;
        long opened = table.getLong(off + OPENED);
        long flags = table.getLongVolatile(off + FLAGS);
        // A slot being cleared holds a dead reader's revision (and start) under its clearer's pid.
        long start = (owner & 0xff) == CLEARING ? 0 : table.getLongVolatile(off + PROCESS_START);
        boolean stale = checkLiveness && !ours && !liveness.alive(pid, start);
        return new ReaderInfo(revision, Math.max(0, latest - revision), now - opened, pid,
                table.getLong(off + THREAD), ours ? threadNames[slot] : null, (owner & 0xff) == CHECKPOINT,
                (flags & EXPIRED) != 0, stale);
    }

    private int highWater() {
        return Math.min(header.getIntVolatile(LockFile.HIGH_WATER), capacity);
    }

    private void raiseHighWater(int value) {
        while (true) {
            int current = header.getIntVolatile(LockFile.HIGH_WATER);
            if (current >= value || header.compareAndSetInt(LockFile.HIGH_WATER, current, value)) {
                return;
            }
        }
    }

    /** Writes the held revisions, ascending and distinct, into {@code out}; returns how many. */
    int collect(long[] out) {
        int limit = highWater();
        int n = 0;
        for (int slot = 0; slot < limit; slot++) {
            long revision = table.getLongVolatile(slot * SLOT_BYTES + REVISION);
            if (revision >= 0) {
                out[n++] = revision;
            }
        }
        if (n > 1) {
            Arrays.sort(out, 0, n);
        }
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            if (distinct == 0 || out[distinct - 1] != out[i]) {
                out[distinct++] = out[i];
            }
        }
        return distinct;
    }

    /** Slots there are (an upper bound of what {@link #collect} returns). */
    int capacity() {
        return capacity;
    }

    /** Revisions of this process's snapshots, for the checker (a racy but safe view). */
    Revision[] heldRevisions() {
        return Arrays.stream(revisions.clone()).filter(r -> r != null).distinct().toArray(Revision[]::new);
    }

    /** Slots holding a revision now, allocating nothing ({@link StoreMetrics}). */
    long openCount() {
        long open = 0;
        int limit = highWater();
        for (int slot = 0; slot < limit; slot++) {
            if (table.getLongVolatile(slot * SLOT_BYTES + REVISION) >= 0) {
                open++;
            }
        }
        return open;
    }

    long[] summary() {
        long open = 0;
        long oldest = Long.MAX_VALUE;
        long openedAt = Long.MAX_VALUE;
        int limit = highWater();
        for (int slot = 0; slot < limit; slot++) {
            int off = slot * SLOT_BYTES;
            long revision = table.getLongVolatile(off + REVISION);
            if (revision >= 0) {
                open++;
                long opened = table.getLong(off + OPENED);
                if (revision < oldest || (revision == oldest && opened < openedAt)) {
                    oldest = revision;
                    openedAt = opened;
                }
            }
        }
        return new long[] {open, oldest == Long.MAX_VALUE ? -1 : oldest, openedAt == Long.MAX_VALUE ? -1 : openedAt};
    }
}
