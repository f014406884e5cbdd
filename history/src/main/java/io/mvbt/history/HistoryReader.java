// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.util.function.Predicate;

import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Snapshot;

/**
 * Reads a history table on one snapshot: every answer comes from the same revision, however
 * long the reader stays open, and the writer never waits for it. Close it promptly: an open
 * snapshot keeps the pages it sees from being reused. Thread-safe, except that each thread should
 * walk on its own.
 */
public final class HistoryReader implements AutoCloseable {
    private final HistoryTable table;
    private final Snapshot snapshot;

    HistoryReader(HistoryTable table, Snapshot snapshot) {
        this.table = table;
        this.snapshot = snapshot;
    }

    /** The revision read. */
    public long revision() {
        return snapshot.revision();
    }

    /** Whether {@code messageId} is present, as an article or remembered. */
    public boolean check(String messageId) {
        return check(MessageIdHash.of(messageId));
    }

    /** {@link #check(String)} by hash. */
    public boolean check(byte[] hash) {
        MessageIdHash.check(hash);
        table.checkOpen();
        if (table.filters.surelyAbsent(hash, snapshot.revision(), snapshot)) {
            return false;
        }
        return snapshot.contains(table.entries, hash);
    }

    /** The article under {@code messageId}, or null if absent or only remembered (as INN's lookup). */
    public HistoryEntry lookup(String messageId) {
        return lookup(MessageIdHash.of(messageId));
    }

    /** {@link #lookup(String)} by hash. */
    public HistoryEntry lookup(byte[] hash) {
        MessageIdHash.check(hash);
        table.checkOpen();
        if (table.filters.surelyAbsent(hash, snapshot.revision(), snapshot)) {
            return null;
        }
        UnsafeBuffer value = new UnsafeBuffer(0, 0);
        if (!snapshot.get(table.entries, new UnsafeBuffer(hash), value) || !EntryCodec.isArticle(value)) {
            return null;
        }
        return EntryCodec.decode(hash.clone(), value);
    }

    /** The entry under {@code messageId} in any form, or null. */
    public HistoryEntry entry(String messageId) {
        return entry(MessageIdHash.of(messageId));
    }

    /** {@link #entry(String)} by hash. */
    public HistoryEntry entry(byte[] hash) {
        MessageIdHash.check(hash);
        table.checkOpen();
        if (table.filters.surelyAbsent(hash, snapshot.revision(), snapshot)) {
            return null;
        }
        UnsafeBuffer value = new UnsafeBuffer(0, 0);
        if (!snapshot.get(table.entries, new UnsafeBuffer(hash), value)) {
            return null;
        }
        return EntryCodec.decode(hash.clone(), value);
    }

    /** Visits every entry in hash order until {@code visitor} returns false; returns the number visited. */
    public long walk(Predicate<? super HistoryEntry> visitor) {
        return walkAfter(null, Long.MAX_VALUE, visitor);
    }

    /**
     * Visits, in hash order, at most {@code limit} entries whose hash sorts after {@code after}
     * (null: from the first), until {@code visitor} returns false; returns the number visited.
     */
    long walkAfter(byte[] after, long limit, Predicate<? super HistoryEntry> visitor) {
        table.checkOpen();
        long visited = 0;
        try (Cursor c = snapshot.cursor(table.entries)) {
            boolean on = after == null ? c.first() : c.seek(after);
            if (on && after != null && java.util.Arrays.equals(c.keyBytes(), after)) {
                on = c.next();
            }
            for (; on && visited < limit; on = c.next()) {
                if (c.keyLength() != MessageIdHash.BYTES) {
                    throw new HistoryException("history table '" + table.name() + "' has a key of " + c.keyLength()
                            + " bytes; hashes are " + MessageIdHash.BYTES);
                }
                HistoryEntry e = EntryCodec.decode(c.keyBytes(), c.value());
                visited++;
                if (!visitor.test(e)) {
                    break;
                }
            }
        }
        return visited;
    }

    /** Passes every hash, in order, until {@code visitor} returns false (the filter's build). */
    void walkHashes(Predicate<byte[]> visitor) {
        try (Cursor c = snapshot.cursor(table.entries)) {
            for (boolean on = c.first(); on; on = c.next()) {
                if (!visitor.test(c.keyBytes())) {
                    return;
                }
            }
        }
    }

    /** Entry counts, in O(1). */
    public HistoryCounts counts() {
        table.checkOpen();
        long total = snapshot.count(table.entries);
        long remembered = HistoryTable.bytesLong(snapshot.get(table.meta, HistoryTable.REMEMBERED_KEY));
        return new HistoryCounts(total, total - remembered, remembered);
    }

    @Override
    public void close() {
        snapshot.close();
    }
}
