// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import io.mvbt.ClosedException;
import io.mvbt.revisions.WriteTxn;

/**
 * Many history writes in one transaction: for rebuilds (INN's makehistory) and for callers that
 * group their own commits. Same rules as the single writes of {@link HistoryTable}; nothing is
 * visible to readers until {@link #commit()}; closing without a commit throws everything away.
 * The batch holds the store's single writer from {@link HistoryTable#beginBatch()} until it ends.
 * Use it from one thread.
 */
public final class HistoryBatch implements AutoCloseable {
    private final HistoryTable table;
    private final WriteTxn txn;
    /** The entries tree's version at the transaction's base, for the presence filter. */
    private final long baseVersion;
    /** Change of the number of remembered entries, written to the counter at commit. */
    private long rememberedDelta;
    private long writes;

    HistoryBatch(HistoryTable table, WriteTxn txn) {
        this.table = table;
        this.txn = txn;
        try {
            this.baseVersion = txn.treeVersion(table.entries);
        } catch (RuntimeException | Error e) {
            // The table's tree was dropped around it: the writer must not stay taken.
            txn.abort();
            throw e;
        }
    }

    private void checkUsable() {
        if (txn.isFinished()) {
            throw new ClosedException("history batch has ended");
        }
        table.checkOpen();
    }

    /** Stores an article unless the Message-ID is present; returns whether it stored. */
    public boolean write(String messageId, long arrived, long posted, long expires, StorageToken token) {
        return write(MessageIdHash.of(messageId), arrived, posted, expires, token);
    }

    /** {@link #write(String, long, long, long, StorageToken)} by hash. */
    public boolean write(byte[] hash, long arrived, long posted, long expires, StorageToken token) {
        MessageIdHash.check(hash);
        if (token == null) {
            throw new IllegalArgumentException("an article needs a storage token (remember() stores without one)");
        }
        checkUsable();
        if (present(hash)) {
            return false;
        }
        table.filters.add(hash);
        txn.put(table.entries, hash, EntryCodec.encode(known(arrived), known(posted), known(expires), token));
        writes++;
        return true;
    }

    /** Remembers the Message-ID unless it is present; returns whether it stored. */
    public boolean remember(String messageId, long arrived, long posted) {
        return remember(MessageIdHash.of(messageId), arrived, posted);
    }

    /** {@link #remember(String, long, long)} by hash. */
    public boolean remember(byte[] hash, long arrived, long posted) {
        MessageIdHash.check(hash);
        checkUsable();
        if (present(hash)) {
            return false;
        }
        table.filters.add(hash);
        txn.put(table.entries, hash, EntryCodec.encode(known(arrived), known(posted), 0, null));
        rememberedDelta++;
        writes++;
        return true;
    }

    /** Stores the entry whatever was there (null token: remembered); returns whether an entry was there. */
    public boolean replace(String messageId, long arrived, long posted, long expires, StorageToken token) {
        return replace(MessageIdHash.of(messageId), arrived, posted, expires, token);
    }

    /** {@link #replace(String, long, long, long, StorageToken)} by hash. */
    public boolean replace(byte[] hash, long arrived, long posted, long expires, StorageToken token) {
        MessageIdHash.check(hash);
        checkUsable();
        byte[] old = txn.get(table.entries, hash);
        put(hash, old, EntryCodec.encode(known(arrived), known(posted), known(expires), token));
        return old != null;
    }

    /** Puts {@code value} where {@code old} (null: nothing) was, keeping the remembered count. */
    void put(byte[] hash, byte[] old, byte[] value) {
        table.filters.add(hash);
        txn.put(table.entries, hash, value);
        rememberedDelta += remembered(value) - (old == null ? 0 : remembered(old));
        writes++;
    }

    /** Whether the hash is in this batch's view; the filter spares the tree most new Message-IDs. */
    private boolean present(byte[] hash) {
        // The filter holds the base revision's hashes and every hash this batch put.
        return !table.filters.surelyAbsent(hash, txn.baseRevision(), baseVersion) && txn.contains(table.entries, hash);
    }

    /** Deletes the entry {@code old} under {@code hash} (expiry). */
    void delete(byte[] hash, byte[] old) {
        if (txn.delete(table.entries, hash)) {
            rememberedDelta -= remembered(old);
            writes++;
        }
    }

    /** The current value under {@code hash} in this batch, or null. */
    byte[] get(byte[] hash) {
        return txn.get(table.entries, hash);
    }

    private static int remembered(byte[] value) {
        return (value[0] & EntryCodec.ARTICLE) == 0 ? 1 : 0;
    }

    private static long known(long time) {
        return time <= 0 ? 0 : time;
    }

    /** Entries stored, replaced or deleted so far. */
    public long writes() {
        return writes;
    }

    /** Publishes the batch's writes in one commit, with the table's durability. */
    public void commit() {
        checkUsable();
        if (rememberedDelta != 0) {
            long remembered = HistoryTable.bytesLong(txn.get(table.meta, HistoryTable.REMEMBERED_KEY));
            txn.put(table.meta, HistoryTable.REMEMBERED_KEY, HistoryTable.longBytes(remembered + rememberedDelta));
            rememberedDelta = 0;
        }
        long entries = txn.count(table.entries);
        long version = txn.treeVersion(table.entries);
        table.filters.committing();
        boolean done = false;
        try {
            txn.commit(table.durability());
            done = true;
        } finally {
            table.filters.committed(txn, done, entries, baseVersion, version);
        }
    }

    /** Throws away the batch's writes if it has not committed. */
    public void abort() {
        txn.abort();
    }

    @Override
    public void close() {
        txn.abort();
    }
}
