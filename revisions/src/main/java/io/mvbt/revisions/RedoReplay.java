// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.CorruptionException;
import io.mvbt.MvbtException;

/**
 * Recovery's second half for a store with a {@link RedoLog}: the records after the revision the
 * store opened at are committed again, in order, each as the revision it names.
 *
 * <p>The log may end early only where a power cut can end it: at bytes that never reached the disk
 * and were never acknowledged. Everything else that does not fit is damage and throws
 * {@link CorruptionException} naming the segment, the byte and the revisions at stake:
 * <ul>
 * <li>a segment of another store; records that do not continue the store's revision; a commit
 *     past a barrier the store does not reach; an operation that does not decode;</li>
 * <li>a segment that something names (its predecessor's NEXT record, or a meta written while the
 *     log recorded, {@link MetaPage#FLAG_LOGGED}) missing, renamed, with a damaged header, or
 *     shorter than it was created: it was created and synced before anything named it;</li>
 * <li>a record that fails its checksum although every sector of it reached the disk (a torn
 *     write leaves a sector of it as zeros: records are written over zeros, one write call per
 *     sector of a record), or one followed by a record that says the log was synced past it;</li>
 * <li>damage in an older segment (synced whole before the next began) whose records the store
 *     does not hold already. Damage of any kind but a foreign segment in records the store holds
 *     is skipped, whatever it hit.</li>
 * </ul>
 * A first pass ({@link #check}) reads the whole log and applies nothing, before recovery writes a
 * byte, so that these are found with every file as it was; a record that decodes but does not
 * apply (a tree it names is missing) is found by the second, which commits ({@link #apply}).
 */
final class RedoReplay {
    /**
     * What the first pass found: the number of records to replay, the newest revision to replay, and
     * the damage the operator chose to open despite ({@link StoreOptions#replayUntilLogDamage}), or null.
     */
    record Plan(int records, long through, String damage) {
        static final Plan NOTHING = new Plan(0, Long.MAX_VALUE, null);
    }

    private final Store store;
    /** False for the first pass, which only reads. */
    private final boolean applying;
    /** The revision the store opened at. */
    private final long base;
    /** Whether the meta the store opened at names a log ({@link MetaPage#FLAG_LOGGED}). */
    private final boolean logged;
    /** The newest revision to replay. */
    private final long through;
    private final RedoStorage storage;
    private final CRC32C crc = new CRC32C();
    private final long storeId;
    private final byte[] seed;
    private final ByteBuffer head = ByteBuffer.allocate(RedoLog.RECORD_HEAD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private byte[] body = new byte[4096];
    private final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
    /** A barrier met at this revision, which the store does not reach: nothing valid may follow. */
    private long barrier = -1;
    /** The revision of the last valid record read (or the one before the first of the segment read), or -1. */
    private long lastRead = -1;
    /** The first revision of the segment the last one read names as its successor, or -1; and which named it. */
    private long named = -1;
    private long namedBy;
    private int applied;

    private RedoReplay(Store store, RedoStorage storage, long storeId, long base, boolean logged, long through,
            boolean applying) {
        this.store = store;
        this.applying = applying;
        this.base = base;
        this.logged = logged;
        this.through = through;
        this.storage = storage;
        this.storeId = storeId;
        this.seed = RedoLog.seedOf(storeId);
    }

    /**
     * The first pass, before anything is written: reads the log in {@code storage} against a store
     * that opens at revision {@code base} from a meta that names a log if {@code logged}. Throws
     * {@link CorruptionException} for damage, unless {@code acceptDamage}: then the plan stops at it.
     */
    static Plan check(Store store, RedoStorage storage, long storeId, long base, boolean logged,
            boolean acceptDamage) {
        RedoReplay reader = new RedoReplay(store, storage, storeId, base, logged, Long.MAX_VALUE, false);
        try {
            return new Plan(reader.pass(storage.segments()), Long.MAX_VALUE, null);
        } catch (CorruptionException e) {
            if (!acceptDamage) {
                throw e;
            }
            return new Plan(reader.applied, base + reader.applied, e.getMessage());
        }
    }

    /** Replays what {@code plan} found onto {@code store}, which opened where the check read from; returns the commits made. */
    static int apply(Store store, RedoStorage storage, long storeId, Plan plan) {
        if (plan.records() == 0) {
            return 0;
        }
        return new RedoReplay(store, storage, storeId, store.revision(), false, plan.through(), true)
                .pass(storage.segments());
    }

    /** Reads (and, if {@link #applying}, commits) the records above the base; returns how many. */
    private int pass(long[] segments) {
        if (logged && segments.length == 0) {
            throw new CorruptionException(-1, "the redo log of " + storage.describe(base + 1) + " is missing: the "
                    + "store's newest meta (revision " + base + ") was written while a log recorded its commits, "
                    + "so commits after it may have been acknowledged by the log alone; nothing was written");
        }
        for (int i = 0; i < segments.length; i++) {
            long first = segments[i];
            long next = i + 1 < segments.length ? segments[i + 1] : -1;
            boolean required = logged && i == 0;
            if (named == first) {
                required = true;
                named = -1;
            } else if (named >= 0) {
                // The successor its predecessor named is missing, or another segment lies before it: only
                // records the store holds may be lost that way.
                long lastLost = first > named ? first - 1 : next >= 0 ? next - 1 : Long.MAX_VALUE;
                if (lastLost > newest()) {
                    throw missingSuccessor(segments, i);
                }
                if (first > named) {
                    named = -1;
                }
            }
            boolean goOn = segment(first, next, required);
            if (named >= 0 && next < 0) {
                throw missingSuccessor(segments, segments.length);
            }
            if (!goOn || newest() >= through) {
                return applied;
            }
        }
        return applied;
    }

    private CorruptionException missingSuccessor(long[] segments, int at) {
        return new CorruptionException(-1, "redo segment " + storage.describe(named) + " is missing: segment "
                + storage.describe(namedBy) + " names it as its successor (it was created before that), but "
                + (at < segments.length ? "the next segment is " + storage.describe(segments[at])
                        : "no segment follows") + "; revisions from " + named + " on may be lost; nothing was written");
    }

    /** The newest revision: the store's, or in the first pass what applying would have made it. */
    private long newest() {
        return applying ? store.revision() : base + applied;
    }

    /**
     * Replays one segment; returns false where the log ends. {@code next} is the next segment's first
     * revision, or -1; {@code required}: something names this segment.
     */
    private boolean segment(long first, long next, boolean required) {
        String where = storage.describe(first);
        try (RedoStorage.Segment segment = new ReadAhead(storage.open(first))) {
            long size = segment.size();
            ByteBuffer header = ByteBuffer.allocate(RedoLog.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            String wrong = headerProblem(segment, header, first);
            if (wrong == null && header.getLong(8) != storeId) {
                throw new CorruptionException(-1, "redo segment " + where + " belongs to another store (id "
                        + Long.toHexString(header.getLong(8)) + ", not " + Long.toHexString(storeId)
                        + "); nothing was written");
            }
            if (next >= 0 && next - 1 <= newest()) {
                // Every record here is in the store already: whatever is wrong with it costs nothing.
                return wrong != null || records(segment, where, first, size, next, true);
            }
            if (wrong != null) {
                if (next >= 0) {
                    throw new CorruptionException(-1, "redo segment " + where + " is damaged: " + wrong
                            + "; it was synced whole before segment " + storage.describe(next)
                            + " began, and revisions " + (newest() + 1) + " to " + (next - 1)
                            + " are in no other place; nothing was written");
                }
                if (required) {
                    throw new CorruptionException(-1, "redo segment " + where + " is damaged: " + wrong + "; it was "
                            + "created and synced before " + namer(first) + " named it, so revisions from " + first
                            + " on that it held may be lost; nothing was written");
                }
                // Created, and the power went before its header reached the disk: nothing named it yet.
                return false;
            }
            long created = header.getLong(RedoLog.HEADER_CREATED);
            if (next < 0 && size < created) {
                if (required) {
                    throw new CorruptionException(-1, "redo segment " + where + " was cut: it holds " + size
                            + " bytes, fewer than the " + created + " it was created and synced with; revisions from "
                            + Math.max(first, newest() + 1) + " on that it held may be lost; nothing was written");
                }
                return false;
            }
            return records(segment, where, first, size, next, false);
        }
    }

    /** Who names the segment of {@code first}, for messages. */
    private String namer(long first) {
        return logged && first <= base + 1 ? "the store's newest meta (revision " + base + ")" : "its predecessor";
    }

    /** What is wrong with the segment's header, or null; reads it into {@code header}. */
    private String headerProblem(RedoStorage.Segment segment, ByteBuffer header, long first) {
        int read = segment.read(header, 0);
        if (read < RedoLog.HEADER_BYTES) {
            return "it holds " + read + " bytes, less than its header";
        }
        if (header.getLong(0) != RedoLog.MAGIC) {
            return "its header's magic is wrong";
        }
        crc.reset();
        crc.update(header.array(), 0, RedoLog.HEADER_BYTES - 4);
        if ((int) crc.getValue() != header.getInt(RedoLog.HEADER_BYTES - 4)) {
            return header.getInt(24) == 1 ? "it is of version 1, which an earlier development build wrote"
                    : "its header fails its checksum";
        }
        if (header.getLong(16) != first || header.getInt(RedoLog.HEADER_VERSION) != RedoLog.VERSION) {
            return "its header names revision " + header.getLong(16) + ", version "
                    + header.getInt(RedoLog.HEADER_VERSION);
        }
        return null;
    }

    /**
     * Reads the records of a segment whose header is sound; returns false where the log ends.
     * {@code held}: the store holds every record here, so damage only ends the segment.
     */
    private boolean records(RedoStorage.Segment segment, String where, long first, long size, long next,
            boolean held) {
        long position = RedoLog.HEADER_BYTES;
        lastRead = Math.max(lastRead, first - 1);
        while (position < size) {
            int length = record(segment, position, size);
            if (length < 0) {
                if (held) {
                    return true;
                }
                if (next >= 0 && hasRecords(next)) {
                    throw new CorruptionException(-1, "redo segment " + where + " is damaged: its record at byte "
                            + position + " is torn, though it was synced whole before segment "
                            + storage.describe(next) + " began; revisions " + (lastRead + 1) + " to " + (next - 1)
                            + " are lost; nothing was written");
                }
                // The end of the log: a torn tail is what a power cut leaves, unless it is damage.
                judgeEnd(segment, where, position, size);
                return false;
            }
            long revision = ByteBuffer.wrap(body, 1, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (body[0] == RedoLog.NEXT) {
                named = revision;
                namedBy = first;
                return next >= 0 || held;
            }
            lastRead = revision;
            if (!held && !apply(where, position, length)) {
                return false;
            }
            if (newest() >= through) {
                return false;
            }
            position += RedoLog.RECORD_HEAD_BYTES + length;
        }
        if (next < 0) {
            return false;
        }
        // A segment ends with NEXT, unless the power went while the next one began.
        if (held || !hasRecords(next)) {
            return held;
        }
        throw new CorruptionException(-1, "redo segment " + where + " was cut: it ends without naming segment "
                + storage.describe(next) + " as its successor; revisions " + (lastRead + 1) + " to " + (next - 1)
                + " may be lost; nothing was written");
    }

    /** Whether the segment of {@code first} holds at least one valid record. */
    private boolean hasRecords(long first) {
        try (RedoStorage.Segment segment = storage.open(first)) {
            ByteBuffer header = ByteBuffer.allocate(RedoLog.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            return headerProblem(segment, header, first) == null
                    && record(segment, RedoLog.HEADER_BYTES, segment.size()) >= 0;
        }
    }

    /**
     * The log ends at {@code position}, where no valid record lies: bytes a power cut kept of records
     * never synced, or damage. Throws if it is damage that cost a revision the store does not hold:
     * the record there reached the disk whole (each of its sectors holds some of it) yet fails its
     * checksum, or a valid record after it says the log was synced past it.
     */
    private void judgeEnd(RedoStorage.Segment segment, String where, long position, long size) {
        long rest = size - position;
        if (rest > Integer.MAX_VALUE - 16) {
            rest = Integer.MAX_VALUE - 16;
        }
        byte[] tail = new byte[(int) rest];
        segment.read(ByteBuffer.wrap(tail), position);
        if (allZero(tail, 0, tail.length)) {
            return;
        }
        long expected = lastRead + 1;
        long stored = newest();
        if (expected > stored && reachedTheDisk(tail, position)) {
            throw new CorruptionException(-1, "redo segment " + where + " is damaged at byte " + position
                    + ": its record there reached the disk whole but fails its checksum; revisions from " + expected
                    + " on, which only the log held (the store is at revision " + stored + "), are lost; nothing "
                    + "was written");
        }
        long syncedThrough = -1;
        long at = -1;
        ByteBuffer view = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN);
        for (int q = 1; q + RedoLog.RECORD_HEAD_BYTES + RedoLog.BODY_FIXED_BYTES <= tail.length; q++) {
            int length = view.getInt(q);
            if (length < RedoLog.BODY_FIXED_BYTES || length > tail.length - q - RedoLog.RECORD_HEAD_BYTES) {
                continue;
            }
            int b = q + RedoLog.RECORD_HEAD_BYTES;
            byte kind = tail[b];
            long revision = view.getLong(b + 1);
            if (kind < RedoLog.OPS || kind > RedoLog.NEXT || revision < expected || revision - expected > 1L << 40) {
                continue;
            }
            crc.reset();
            crc.update(seed);
            crc.update(tail, b, length);
            if ((int) crc.getValue() == view.getInt(q + 4)) {
                long synced = view.getLong(b + 9);
                if (synced > syncedThrough) {
                    syncedThrough = synced;
                    at = position + q;
                }
                q += RedoLog.RECORD_HEAD_BYTES + length - 1;
            }
        }
        if (syncedThrough >= expected && syncedThrough > stored) {
            throw new CorruptionException(-1, "redo segment " + where + " is damaged at byte " + position
                    + ": the record at byte " + at + " says the log was synced through revision " + syncedThrough
                    + " before it was written, but revisions from " + expected + " on cannot be read (the store is at "
                    + "revision " + stored + "): acknowledged commits are lost; nothing was written");
        }
    }

    /**
     * Whether the record at the start of {@code tail} (at {@code position} of its segment) reached
     * the disk whole: none of its bytes within one sector are all zero, where a torn write would
     * have left a sector as it was.
     */
    private static boolean reachedTheDisk(byte[] tail, long position) {
        if (tail.length < RedoLog.RECORD_HEAD_BYTES) {
            // Its head runs past the end of the file: the rest never reached the disk.
            return false;
        }
        ByteBuffer view = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN);
        int end = RedoLog.RECORD_HEAD_BYTES;
        int length = view.getInt(0);
        if (length >= RedoLog.BODY_FIXED_BYTES && length <= tail.length - RedoLog.RECORD_HEAD_BYTES) {
            end += length;
        } else if (length >= RedoLog.BODY_FIXED_BYTES) {
            return false;
        }
        int from = 0;
        while (from < end) {
            int to = (int) Math.min(end, from + RedoLog.SECTOR_BYTES - (position + from) % RedoLog.SECTOR_BYTES);
            if (allZero(tail, from, to)) {
                return false;
            }
            from = to;
        }
        return true;
    }

    private static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Reads the record at {@code position} into {@link #body}; returns its body's length, or -1 if it is torn. */
    private int record(RedoStorage.Segment segment, long position, long size) {
        head.clear();
        if (segment.read(head, position) < RedoLog.RECORD_HEAD_BYTES) {
            return -1;
        }
        int length = head.getInt(0);
        if (length < RedoLog.BODY_FIXED_BYTES || length > RedoRecord.MAX_BYTES + RedoLog.BODY_FIXED_BYTES
                || position + RedoLog.RECORD_HEAD_BYTES + length > size) {
            return -1;
        }
        if (body.length < length) {
            body = new byte[Math.max(length, body.length * 2)];
        }
        ByteBuffer target = ByteBuffer.wrap(body, 0, length);
        if (segment.read(target, position + RedoLog.RECORD_HEAD_BYTES) < length) {
            return -1;
        }
        crc.reset();
        crc.update(seed);
        crc.update(body, 0, length);
        return (int) crc.getValue() == head.getInt(4) ? length : -1;
    }

    /** Applies the record in {@link #body}, unless the store holds it; returns false where the log ends. */
    private boolean apply(String where, long position, int length) {
        byte kind = body[0];
        long revision = ByteBuffer.wrap(body, 1, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        long newest = newest();
        if (barrier >= 0) {
            throw new CorruptionException(-1, "redo segment " + where + " holds revision " + revision
                    + " past the barrier of revision " + barrier + ", whose pages the store does not hold (opened at "
                    + newest + "): the file lost synced pages; nothing was written");
        }
        if (revision <= newest) {
            return true;
        }
        if (revision != newest + 1) {
            throw new CorruptionException(-1, "redo segment " + where + " continues at revision " + revision
                    + " (byte " + position + ") but the store opened at revision " + newest + ": revisions "
                    + (newest + 1) + " to " + (revision - 1) + " are missing; nothing was written");
        }
        if (kind == RedoLog.BARRIER) {
            // Its commit synced its pages and meta before returning; a commit cut short leaves it unreached.
            barrier = revision;
            return true;
        }
        if (kind != RedoLog.OPS) {
            throw new CorruptionException(-1, "redo segment " + where + " has a record of unknown kind " + kind
                    + " at byte " + position + "; nothing was written");
        }
        if (!applying) {
            try {
                operations(null, RedoLog.BODY_FIXED_BYTES, length);
            } catch (IllegalStateException | IllegalArgumentException | IndexOutOfBoundsException e) {
                throw new CorruptionException(-1, "redo record of revision " + revision + " in " + where
                        + " does not decode: " + e.getMessage() + "; nothing was written", e);
            }
            applied++;
            return true;
        }
        try (WriteTxn tx = store.beginWrite()) {
            operations(tx, RedoLog.BODY_FIXED_BYTES, length);
            tx.commit(Durability.NORMAL);
        } catch (io.mvbt.StorageException e) {
            // The disk, not the log: the next open replays from this record again.
            throw e;
        } catch (MvbtException | IllegalArgumentException | IllegalStateException e) {
            throw new CorruptionException(-1, "redo record of revision " + revision + " in " + where
                    + " does not apply to the store (the " + applied + " record(s) before it were replayed): "
                    + e.getMessage(), e);
        }
        if (store.revision() != revision) {
            throw new IllegalStateException("replaying revision " + revision + " made revision " + store.revision());
        }
        applied++;
        return true;
    }

    private int at;

    /** Performs the operations of {@code body[from, end)} in {@code tx}, or only decodes them if it is null. */
    private void operations(WriteTxn tx, int from, int end) {
        at = from;
        Tree tree = null;
        boolean loading = false;
        BulkLoad load = null;
        while (at < end) {
            byte op = body[at++];
            if (op != RedoRecord.LOAD_ADD && op != RedoRecord.LOAD_END) {
                tree = tree(tree);
            }
            switch (op) {
                case RedoRecord.PUT -> {
                    blob(key);
                    blob(value);
                    if (tx != null) {
                        tx.put(tree, key, value);
                    }
                }
                case RedoRecord.DELETE -> {
                    blob(key);
                    if (tx != null) {
                        tx.delete(tree, key);
                    }
                }
                case RedoRecord.DELETE_RANGE -> {
                    byte[] low = bytes();
                    byte[] high = bytes();
                    if (tx != null) {
                        tx.deleteRange(tree, low, high);
                    }
                }
                case RedoRecord.CREATE_TREE -> {
                    if (tx != null) {
                        tx.createTree(tree.name());
                    }
                }
                case RedoRecord.DROP_TREE -> {
                    if (tx != null) {
                        tx.dropTree(tree);
                    }
                }
                case RedoRecord.LOAD -> {
                    double fill = ByteBuffer.wrap(body, at, 8).order(ByteOrder.LITTLE_ENDIAN).getDouble();
                    at += 8;
                    loading = true;
                    load = tx == null ? null : tx.bulkLoad(tree, fill);
                }
                case RedoRecord.LOAD_ADD -> {
                    if (!loading) {
                        throw new IllegalStateException("an entry for a bulk load that is not open");
                    }
                    blob(key);
                    blob(value);
                    if (load != null) {
                        load.add(key, value);
                    }
                }
                case RedoRecord.LOAD_END -> {
                    loading = false;
                    if (load != null) {
                        load.close();
                        load = null;
                    }
                }
                default -> throw new IllegalStateException("unknown operation " + op);
            }
        }
        if (at != end) {
            throw new IllegalStateException("operations overrun their record");
        }
    }

    /** The tree an operation names: its name, or the tree of the operation before (length 0). */
    private Tree tree(Tree last) {
        int n = body[at++] & 0xFF;
        if (n == 0) {
            if (last == null) {
                throw new IllegalStateException("the first operation names no tree");
            }
            return last;
        }
        String name = new String(body, at, n, StandardCharsets.UTF_8);
        at += n;
        return store.tree(name);
    }

    private int length() {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            byte b = body[at++];
            v |= (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new IllegalStateException("a length longer than 5 bytes");
    }

    private void blob(UnsafeBuffer target) {
        int n = length();
        if (n < 0 || n > body.length - at) {
            throw new IllegalStateException("a length past the record");
        }
        target.wrap(body, at, n);
        at += n;
    }

    private byte[] bytes() {
        int n = length();
        if (n < 0 || n > body.length - at) {
            throw new IllegalStateException("a length past the record");
        }
        byte[] b = Arrays.copyOfRange(body, at, at + n);
        at += n;
        return b;
    }
}
