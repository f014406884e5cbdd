// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import io.mvbt.StorageException;

/**
 * The redo log of a file's sole writer ({@link StoreOptions#redoLog}): every commit appends a
 * record of its changes ({@link RedoRecord}), so that a SYNC commit or {@link Store#sync()} is one
 * fdatasync of the bytes that changed instead of a write of every page they touched; checkpoints
 * still write the pages, spaced out, and each deletes the segments whose records it covers.
 * Recovery opens at the newest revision the file can be trusted at and replays the records after
 * it ({@link RedoReplay}).
 *
 * <p>Records go to a buffer, written to the current segment when it fills, and synced on demand. A
 * new segment starts when one passes {@link #segmentBytes}, after the old one is cut to its last
 * record and synced, so that a sync of the current segment covers every record before it. The
 * current segment is written with zeros {@link #GROWTH_BYTES} ahead of its records: a sync of
 * records written over zeros is one write of data, where one that grows the file also commits the
 * file system's journal. Replay ends at the first record of length 0. Used by the writer (appends,
 * under the writer permit), by {@link Store#sync()} from any thread and by the checkpointer: all
 * synchronized.
 *
 * <p>So that replay can tell damage from records that never reached the disk ({@link RedoReplay}):
 * every record carries the revision through which the log was synced when it was appended; a
 * segment is created, its header and first zeros synced, before any record goes into it or
 * anything names it; an old segment ends with a NEXT record naming its successor; and while the
 * log records, every meta names it ({@link MetaPage#FLAG_LOGGED}). A record's bytes within one
 * 512-byte sector of the file are written by one write call, so that a sector the power cut kept
 * holds all of them or none.
 */
final class RedoLog {
    /** "mvbtredo" */
    static final long MAGIC = 0x6d76627472656f64L;
    static final int VERSION = 2;
    /** Magic, store id, first revision, bytes synced at creation, version, CRC32C of the 36 bytes before. */
    static final int HEADER_BYTES = 40;
    static final int HEADER_CREATED = 24;
    static final int HEADER_VERSION = 32;
    /** Body length and CRC32C; the body is the kind, the revision, the synced revision and, for OPS, the operations. */
    static final int RECORD_HEAD_BYTES = 8;
    static final int BODY_FIXED_BYTES = 17;
    static final byte OPS = 1;
    /** A commit that was not recorded (too large): made durable by syncing its pages; replay stops here. */
    static final byte BARRIER = 2;
    /** The last record of a segment that was followed by another: its revision is the next segment's first. */
    static final byte NEXT = 3;
    /** The unit a disk writes whole, or not at all, at a power cut (as SQLite assumes of sectors). */
    static final int SECTOR_BYTES = 512;
    /** A new segment starts past this size (tests make it small). */
    static long segmentBytes = 64L << 20;
    private static final int BUFFER_BYTES = 1 << 20;
    /** How far ahead of its records the current segment is written with zeros. */
    static final int GROWTH_BYTES = 4 << 20;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20);

    private final RedoStorage storage;
    private final long storeId;
    private final CRC32C crc = new CRC32C();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer fixed = ByteBuffer.allocate(RECORD_HEAD_BYTES + BODY_FIXED_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer header = ByteBuffer.allocateDirect(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] seed;
    private final RedoRecord record = new RedoRecord();
    /** First revisions of the segments before the current one, oldest first. */
    private final List<Long> older = new ArrayList<>();
    private RedoStorage.Segment current;
    private long currentFirst;
    /** Bytes of the current segment written to its file; the buffer holds what follows. */
    private long flushed;
    /** Bytes of the current segment written with zeros ahead of its records. */
    private long allocated;
    private long appended = -1;
    private volatile long synced = -1;
    /** False while recovery replays (the records are in the log already) and once the log is closed. */
    private boolean recording;
    /** The first write or sync of the log that failed: nothing may be appended after it. */
    private StorageException failure;

    RedoLog(RedoStorage storage, long storeId) {
        this.storage = storage;
        this.storeId = storeId;
        this.seed = seedOf(storeId);
    }

    /** What every record's CRC32C starts from: the store id's 8 bytes, so that no other store's record verifies. */
    static byte[] seedOf(long storeId) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(storeId).array();
    }

    /** The record for a transaction to fill, or null if commits are not recorded now. */
    synchronized RedoRecord begin() {
        return recording ? record.reset() : null;
    }

    /**
     * After recovery replayed the log and checkpointed: the old segments go (newest first, so that
     * a crash meanwhile leaves a log that replays as far as before) and, if {@code record}, commits
     * are recorded from now on, from revision {@code next}: its segment is created before this
     * returns, so that the metas that name the log from now on never name one that is missing.
     */
    synchronized void start(boolean record, long next) {
        long[] segments = storage.segments();
        for (int i = segments.length - 1; i >= 0; i--) {
            storage.delete(segments[i]);
        }
        if (segments.length > 0) {
            storage.syncDeletes();
        }
        recording = record;
        if (record) {
            begin(createSegment(next), next);
            appended = next - 1;
            synced = appended;
        }
    }

    /**
     * Appends the record of commit {@code revision}, and syncs the log if {@code durability} is
     * SYNC; returns how the commit's pages are to be made durable: as a NORMAL commit's, or, for a
     * transaction too large to record, as a SYNC commit's (a barrier record says so).
     */
    synchronized Durability commit(long revision, RedoRecord r, Durability durability) {
        if (r.overflowed()) {
            append(BARRIER, revision, null, 0);
            return Durability.SYNC;
        }
        append(OPS, revision, r.bytes(), r.length());
        if (durability == Durability.SYNC) {
            sync();
        }
        return Durability.NORMAL;
    }

    /** Records a revision that changed nothing the trees hold (giving back the free tail). */
    synchronized void unchanged(long revision) {
        if (recording) {
            append(OPS, revision, null, 0);
        }
    }

    private void append(byte kind, long revision, byte[] ops, int opsLength) {
        if (failure != null) {
            throw new StorageException("the redo log failed earlier (" + failure.getMessage() + ")", failure);
        }
        try {
            appendUnchecked(kind, revision, ops, opsLength);
        } catch (StorageException e) {
            failure = e;
            throw e;
        }
    }

    private void appendUnchecked(byte kind, long revision, byte[] ops, int opsLength) {
        if (revision != appended + 1 && appended >= 0) {
            throw new IllegalStateException("redo record of revision " + revision + " after " + appended);
        }
        int total = RECORD_HEAD_BYTES + BODY_FIXED_BYTES + opsLength;
        if (current == null) {
            throw new IllegalStateException("the redo log is not recording");
        }
        if (flushed + buffer.position() + total > segmentBytes && flushed + buffer.position() > HEADER_BYTES) {
            rotate(revision);
        }
        putRecord(kind, revision, ops, opsLength);
        appended = revision;
    }

    /**
     * Starts the segment of {@code first}: created and synced first, then named by a NEXT record at
     * the end of the current one, which is cut to its records and synced, so that a sync of the new
     * one covers every record before it, and whatever names a segment names one that exists.
     */
    private void rotate(long first) {
        RedoStorage.Segment next = createSegment(first);
        putRecord(NEXT, first, null, 0);
        flush();
        current.truncate(flushed);
        current.sync();
        current.close();
        synced = appended;
        older.add(currentFirst);
        begin(next, first);
    }

    /** Appends go to {@code segment}, just created, from now on. */
    private void begin(RedoStorage.Segment segment, long first) {
        current = segment;
        currentFirst = first;
        flushed = HEADER_BYTES;
        allocated = createdBytes();
        buffer.clear();
    }

    /** The bytes a segment is created with: its header and zeros, synced before anything names it. */
    private static long createdBytes() {
        return Math.max(HEADER_BYTES, Math.min(GROWTH_BYTES, segmentBytes));
    }

    /** Appends one record to the buffer; a record's bytes in one sector are written by one call. */
    private void putRecord(byte kind, long revision, byte[] ops, int opsLength) {
        fixed.clear();
        fixed.putInt(BODY_FIXED_BYTES + opsLength).putInt(0).put(kind).putLong(revision).putLong(synced);
        crc.reset();
        crc.update(seed);
        crc.update(fixed.array(), RECORD_HEAD_BYTES, BODY_FIXED_BYTES);
        if (opsLength > 0) {
            crc.update(ops, 0, opsLength);
        }
        fixed.putInt(4, (int) crc.getValue());
        int total = fixed.capacity() + opsLength;
        if (total > buffer.remaining()) {
            flush();
        }
        if (total <= buffer.remaining()) {
            buffer.put(fixed.array());
            if (opsLength > 0) {
                buffer.put(ops, 0, opsLength);
            }
            return;
        }
        // Larger than the buffer: written whole by one call.
        ByteBuffer whole = ByteBuffer.allocate(total);
        whole.put(fixed.array()).put(ops, 0, opsLength).flip();
        write(whole);
    }

    /**
     * Creates the segment of {@code first} with its header and first zeros, synced: a segment that
     * anything names has its header, and is at least as long as the header says.
     */
    private RedoStorage.Segment createSegment(long first) {
        long created = createdBytes();
        RedoStorage.Segment segment = storage.create(first);
        try {
            // A buffer of its own: the current segment's records may still wait in the shared one.
            header.clear();
            header.putLong(MAGIC).putLong(storeId).putLong(first).putLong(created).putInt(VERSION);
            crc.reset();
            crc.update(header.duplicate().flip());
            header.putInt((int) crc.getValue()).flip();
            segment.write(header, 0);
            for (long at = HEADER_BYTES; at < created;) {
                ByteBuffer zeros = ZEROS.duplicate();
                zeros.limit((int) Math.min(zeros.capacity(), created - at));
                segment.write(zeros, at);
                at += zeros.limit();
            }
            segment.sync();
        } catch (RuntimeException e) {
            segment.close();
            throw e;
        }
        return segment;
    }

    /** Writes the buffer into the current segment. */
    private void flush() {
        if (current == null || buffer.position() == 0) {
            return;
        }
        buffer.flip();
        write(buffer);
        buffer.clear();
    }

    /** Writes {@code bytes} after the current segment's records, with zeros ahead of them. */
    private void write(ByteBuffer bytes) {
        int n = bytes.remaining();
        if (allocated < flushed + n) {
            long end = Math.max(flushed + n, Math.min(allocated + GROWTH_BYTES, segmentBytes));
            while (allocated < end) {
                ByteBuffer zeros = ZEROS.duplicate();
                zeros.limit((int) Math.min(zeros.capacity(), end - allocated));
                current.write(zeros, allocated);
                allocated += zeros.limit();
            }
        }
        current.write(bytes, flushed);
        flushed += n;
    }

    /** Makes every record appended so far durable: {@link Store#sync()}, and SYNC commits. */
    synchronized void sync() {
        if (failure != null) {
            throw new StorageException("the redo log failed earlier (" + failure.getMessage() + ")", failure);
        }
        if (current == null || synced == appended) {
            return;
        }
        try {
            flush();
            current.sync();
        } catch (StorageException e) {
            // A failed fdatasync is not retried as if it worked: the kernel may have dropped the pages.
            failure = e;
            throw e;
        }
        synced = appended;
    }

    /** The newest revision whose record is synced, or -1. */
    long synced() {
        return synced;
    }

    /**
     * A checkpoint made {@code durable} durable in the file: the segments whose records all lie at
     * or below it are deleted. (The current segment stays; it is deleted at close.)
     */
    synchronized void checkpointed(long durable) {
        boolean deleted = false;
        // A segment's records all lie below the next segment's first.
        while (!older.isEmpty() && (older.size() > 1 ? older.get(1) : currentFirst) - 1 <= durable) {
            try {
                storage.delete(older.get(0));
            } catch (StorageException e) {
                // It stays: replay skips records the store holds. Tried again at the next checkpoint.
                break;
            }
            older.remove(0);
            deleted = true;
        }
        if (deleted) {
            try {
                storage.syncDeletes();
            } catch (StorageException e) {
                // The segments hold only records at or below a durable revision: replay skips them.
            }
        }
    }

    /**
     * Closes the log; {@code checkpointed} says every commit is durable in the file, so the
     * segments go. Otherwise what was appended is written out (not synced) for the next open to
     * replay as far as it reached the disk.
     */
    synchronized void close(boolean checkpointed) {
        recording = false;
        if (current == null) {
            if (checkpointed) {
                start(false, 0);
            }
            return;
        }
        try {
            if (!checkpointed) {
                flush();
            }
        } catch (StorageException e) {
            // The store failed already, or fails now: the next open replays what reached the disk.
        } finally {
            current.close();
            current = null;
        }
        if (checkpointed) {
            start(false, 0);
        }
    }
}
