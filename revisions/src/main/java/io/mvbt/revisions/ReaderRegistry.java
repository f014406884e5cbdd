package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The revisions that open snapshots hold, in slots of a cache line each, kept in off-heap atomic
 * buffers so that the same layout can later live in a memory-mapped lock file shared by processes.
 * Opening a snapshot claims a free slot with one compare-and-set and publishes a revision; the
 * writer only reads the slots, so neither ever waits for the other.
 *
 * <pre>
 * slot (64 bytes):  0 u64 revision (-1: none)   8 u64 owner (0: free, 1: snapshot, 2: checkpoint)
 *                   16 u64 opened (epoch ms)   24 u64 thread id   32 u64 flags (slow-reader state)
 * </pre>
 */
final class ReaderRegistry {
    static final int SLOT_BYTES = 64;
    static final int REVISION = 0;
    static final int OWNER = 8;
    static final int OPENED = 16;
    static final int THREAD = 24;
    static final int FLAGS = 32;
    static final long SNAPSHOT = 1;
    static final long CHECKPOINT = 2;
    /** Flag: the slow-reader policy has seen this holder (it is told of each once). */
    static final long REPORTED = 1;
    /** Flag: the slow-reader policy expired this snapshot. */
    static final long EXPIRED = 2;
    private static final int SLOTS_PER_SEGMENT = 64;

    private volatile AtomicBuffer[] segments = new AtomicBuffer[0];
    /** One past the highest slot ever claimed: the writer scans no further. */
    private volatile int highWater;
    /** In-process snapshots' revisions by slot, for the integrity checker. */
    private volatile Revision[][] revisions = new Revision[0][];
    /** Names of the threads that claimed the slots, for reports of slow readers. */
    private volatile String[][] threadNames = new String[0][];

    ReaderRegistry() {
        addSegment(0);
    }

    /** Claims a free slot for {@code owner}; the slot holds no revision yet. */
    int claim(long owner) {
        while (true) {
            AtomicBuffer[] segs = segments;
            int total = segs.length * SLOTS_PER_SEGMENT;
            // Lowest free slot first, so that the writer's scan stays short.
            for (int slot = 0; slot < total; slot++) {
                AtomicBuffer seg = segs[slot / SLOTS_PER_SEGMENT];
                int off = (slot % SLOTS_PER_SEGMENT) * SLOT_BYTES;
                if (seg.getLongVolatile(off + OWNER) == 0 && seg.compareAndSetLong(off + OWNER, 0, owner)) {
                    Thread thread = Thread.currentThread();
                    seg.putLong(off + OPENED, System.currentTimeMillis());
                    seg.putLong(off + THREAD, thread.getId());
                    // A new generation in the flags' upper bits, so that a mark meant for the slot's
                    // previous holder cannot land on this one.
                    seg.putLongVolatile(off + FLAGS, ((seg.getLong(off + FLAGS) >>> 8) + 1) << 8);
                    threadNames[slot / SLOTS_PER_SEGMENT][slot % SLOTS_PER_SEGMENT] = thread.getName();
                    raiseHighWater(slot + 1);
                    return slot;
                }
            }
            addSegment(segs.length);
        }
    }

    /**
     * Publishes the revision a slot holds. The caller re-reads the newest revision afterwards and
     * publishes again if it moved: the writer publishes a revision before it reads the slots, so one
     * of the two always sees the other.
     */
    void hold(int slot, Revision revision) {
        segment(slot).putLongVolatile(offset(slot) + REVISION, revision.revision);
        revisions[slot / SLOTS_PER_SEGMENT][slot % SLOTS_PER_SEGMENT] = revision;
    }

    void release(int slot) {
        AtomicBuffer seg = segment(slot);
        int off = offset(slot);
        revisions[slot / SLOTS_PER_SEGMENT][slot % SLOTS_PER_SEGMENT] = null;
        seg.putLongVolatile(off + REVISION, -1);
        seg.putLongOrdered(off + OWNER, 0);
    }

    /** Whether the slow-reader policy expired the snapshot in {@code slot}. */
    boolean expired(int slot) {
        return (segment(slot).getLongVolatile(offset(slot) + FLAGS) & EXPIRED) != 0;
    }

    /** Every holder now, {@code latest} being the newest revision. */
    List<ReaderInfo> readers(long latest) {
        List<ReaderInfo> out = new ArrayList<>();
        long now = System.currentTimeMillis();
        int limit = highWater;
        for (int slot = 0; slot < limit; slot++) {
            ReaderInfo info = info(slot, latest, now);
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
    void reportSlow(SlowReaderPolicy policy, long latest) {
        long now = System.currentTimeMillis();
        int limit = highWater;
        for (int slot = 0; slot < limit; slot++) {
            AtomicBuffer seg = segment(slot);
            int off = offset(slot);
            long flags = seg.getLongVolatile(off + FLAGS);
            if ((flags & REPORTED) != 0 || seg.getLongVolatile(off + OWNER) != SNAPSHOT) {
                continue;
            }
            ReaderInfo info = info(slot, latest, now);
            if (info == null || !policy.isSlow(info.lag(), info.ageMillis())) {
                continue;
            }
            long mark = REPORTED | (policy.handler().expire(info) ? EXPIRED : 0);
            // Fails if the slot was released and claimed again meanwhile (a new generation).
            seg.compareAndSetLong(off + FLAGS, flags, flags | mark);
        }
    }

    private ReaderInfo info(int slot, long latest, long now) {
        AtomicBuffer seg = segment(slot);
        int off = offset(slot);
        long revision = seg.getLongVolatile(off + REVISION);
        long owner = seg.getLongVolatile(off + OWNER);
        if (revision < 0 || owner == 0) {
            return null;
        }
        long opened = seg.getLong(off + OPENED);
        long flags = seg.getLongVolatile(off + FLAGS);
        return new ReaderInfo(revision, Math.max(0, latest - revision), now - opened, seg.getLong(off + THREAD),
                threadNames[slot / SLOTS_PER_SEGMENT][slot % SLOTS_PER_SEGMENT], owner == CHECKPOINT,
                (flags & EXPIRED) != 0);
    }

    private void raiseHighWater(int value) {
        if (highWater < value) {
            synchronized (this) {
                if (highWater < value) {
                    highWater = value;
                }
            }
        }
    }

    /** Writes the held revisions, ascending and distinct, into {@code out}; returns how many. */
    int collect(long[] out) {
        AtomicBuffer[] segs = segments;
        int limit = highWater;
        int n = 0;
        for (int slot = 0; slot < limit; slot++) {
            long revision = segs[slot / SLOTS_PER_SEGMENT].getLongVolatile((slot % SLOTS_PER_SEGMENT) * SLOT_BYTES
                    + REVISION);
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
        return segments.length * SLOTS_PER_SEGMENT;
    }

    /** Revisions of in-process snapshots, for the checker (a racy but safe view). */
    Revision[] heldRevisions() {
        Revision[][] all = revisions;
        return Arrays.stream(all).flatMap(Arrays::stream).filter(r -> r != null).distinct().toArray(Revision[]::new);
    }

    /** Open snapshots, oldest revision held and when its oldest holder opened: for stats. */
    long[] summary() {
        long open = 0;
        long oldest = Long.MAX_VALUE;
        long openedAt = Long.MAX_VALUE;
        for (AtomicBuffer seg : segments) {
            for (int i = 0; i < SLOTS_PER_SEGMENT; i++) {
                long revision = seg.getLongVolatile(i * SLOT_BYTES + REVISION);
                if (revision >= 0) {
                    open++;
                    long opened = seg.getLong(i * SLOT_BYTES + OPENED);
                    if (revision < oldest || (revision == oldest && opened < openedAt)) {
                        oldest = revision;
                        openedAt = opened;
                    }
                }
            }
        }
        return new long[] {open, oldest == Long.MAX_VALUE ? -1 : oldest, openedAt == Long.MAX_VALUE ? -1 : openedAt};
    }

    private AtomicBuffer segment(int slot) {
        return segments[slot / SLOTS_PER_SEGMENT];
    }

    private static int offset(int slot) {
        return (slot % SLOTS_PER_SEGMENT) * SLOT_BYTES;
    }

    private synchronized void addSegment(int expectedCount) {
        if (segments.length != expectedCount) {
            return;
        }
        UnsafeBuffer seg = new UnsafeBuffer(BufferUtil.allocateDirectAligned(SLOTS_PER_SEGMENT * SLOT_BYTES, 64));
        for (int i = 0; i < SLOTS_PER_SEGMENT; i++) {
            seg.putLong(i * SLOT_BYTES + REVISION, -1);
        }
        Revision[][] refs = Arrays.copyOf(revisions, expectedCount + 1);
        refs[expectedCount] = new Revision[SLOTS_PER_SEGMENT];
        revisions = refs;
        String[][] names = Arrays.copyOf(threadNames, expectedCount + 1);
        names[expectedCount] = new String[SLOTS_PER_SEGMENT];
        threadNames = names;
        AtomicBuffer[] next = Arrays.copyOf(segments, expectedCount + 1);
        next[expectedCount] = seg;
        segments = next;
    }
}
