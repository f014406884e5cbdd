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
 * store opened at are committed again, in order, each as the revision it names. The log ends at
 * its first torn or missing record in the last segment (what a power cut left of records never
 * synced): a prefix of the commits is a committed state. Anything else that does not fit is
 * damage and throws {@link CorruptionException}: a segment of another store, a torn record in a
 * segment that was synced whole, records that do not continue the store's revision, a commit past
 * a barrier the store does not reach, an operation that does not decode. A first pass reads the
 * whole log and applies nothing, so that these are found before anything is written; a record that
 * decodes but does not apply (a tree it names is missing) is found by the second, which commits.
 */
final class RedoReplay {
    private final Store store;
    /** False for the first pass, which only reads. */
    private final boolean applying;
    /** The revision the store opened at. */
    private final long base;
    private final RedoStorage storage;
    private final long storeId;
    private final CRC32C crc = new CRC32C();
    private final byte[] seed;
    private final ByteBuffer head = ByteBuffer.allocate(RedoLog.RECORD_HEAD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private byte[] body = new byte[4096];
    private final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
    /** A barrier met at this revision, which the store does not reach: nothing valid may follow. */
    private long barrier = -1;
    private int applied;

    private RedoReplay(Store store, RedoStorage storage, long storeId, boolean applying) {
        this.store = store;
        this.applying = applying;
        this.base = store.revision();
        this.storage = storage;
        this.storeId = storeId;
        this.seed = RedoLog.seedOf(storeId);
    }

    /** Replays the log in {@code storage} onto {@code store}; returns the commits made. */
    static int run(Store store, RedoStorage storage, long storeId) {
        long[] segments = storage.segments();
        if (new RedoReplay(store, storage, storeId, false).pass(segments) == 0) {
            return 0;
        }
        return new RedoReplay(store, storage, storeId, true).pass(segments);
    }

    /** Reads (and, if {@link #applying}, commits) the records above the base; returns how many. */
    private int pass(long[] segments) {
        for (int i = 0; i < segments.length; i++) {
            long next = i + 1 < segments.length ? segments[i + 1] : -1;
            if (!segment(segments[i], next)) {
                break;
            }
        }
        return applied;
    }

    /** The newest revision: the store's, or in the first pass what applying would have made it. */
    private long newest() {
        return applying ? store.revision() : base + applied;
    }

    /** Replays one segment; returns false where the log ends. {@code next} is the next segment's first revision, or -1. */
    private boolean segment(long first, long next) {
        String where = storage.describe(first);
        try (RedoStorage.Segment segment = storage.open(first)) {
            long size = segment.size();
            ByteBuffer header = ByteBuffer.allocate(RedoLog.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            if (segment.read(header, 0) < RedoLog.HEADER_BYTES || !headerValid(header)) {
                if (next < 0) {
                    // Created, and the power went before its header reached the disk.
                    return false;
                }
                throw damaged(where, "its header is damaged", next);
            }
            if (header.getLong(8) != storeId) {
                throw new CorruptionException(-1, "redo segment " + where + " belongs to another store (id "
                        + Long.toHexString(header.getLong(8)) + ", not " + Long.toHexString(storeId)
                        + "); nothing was written");
            }
            if (header.getLong(16) != first || header.getInt(24) != RedoLog.VERSION) {
                throw damaged(where, "its header names revision " + header.getLong(16) + ", version " + header.getInt(24),
                        next);
            }
            long position = RedoLog.HEADER_BYTES;
            while (position < size) {
                int length = record(segment, position, size);
                if (length < 0) {
                    if (next < 0) {
                        return false;
                    }
                    if (next - 1 <= newest()) {
                        // Damage in records the store holds already.
                        return true;
                    }
                    throw damaged(where, "its record at byte " + position + " is torn", next);
                }
                if (!apply(where, position, length)) {
                    return false;
                }
                position += RedoLog.RECORD_HEAD_BYTES + length;
            }
            return true;
        }
    }

    private boolean headerValid(ByteBuffer header) {
        if (header.getLong(0) != RedoLog.MAGIC) {
            return false;
        }
        crc.reset();
        crc.update(header.array(), 0, RedoLog.HEADER_BYTES - 4);
        return (int) crc.getValue() == header.getInt(RedoLog.HEADER_BYTES - 4);
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

    private static CorruptionException damaged(String where, String what, long next) {
        return new CorruptionException(-1, "redo segment " + where + " is damaged: " + what + ", and segment(s) from "
                + "revision " + next + " follow it; nothing was written");
    }
}
