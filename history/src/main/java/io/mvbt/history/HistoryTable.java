// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.Predicate;

import io.mvbt.ClosedException;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * A Usenet news history table with INN's semantics: for each Message-ID seen, keyed by its hash
 * ({@link MessageIdHash}), either an article (storage token and times) or a remembered entry.
 *
 * <ul>
 * <li>{@link #write} stores an article; a Message-ID already present (as article or remembered) is
 * left as it is, and {@code write} returns false.</li>
 * <li>{@link #remember} stores a remembered entry; it never downgrades an article, nor changes an
 * entry that is there.</li>
 * <li>{@link #replace} overwrites whatever is there (a null token makes the entry remembered).</li>
 * <li>{@link #check} says whether the Message-ID is present in any form; {@link #lookup} returns
 * an article only: a remembered entry is "not found", as in INN.</li>
 * <li>{@link #walk} visits every entry of one snapshot in hash order.</li>
 * <li>{@link #counts} is O(1).</li>
 * <li>{@link #expire} expires in place in short transactions while writers and readers go on.</li>
 * </ul>
 *
 * <p>Every write is one commit, in {@link Durability#NORMAL} unless the table was opened with
 * another durability: a killed process loses nothing, a power cut loses at most the commits since
 * the last {@link #sync()} and never corrupts (INN's contract for its history). {@link #sync()} makes
 * everything durable: in a file of the table's own, by syncing the store's redo log. For rebuilds,
 * {@link #beginBatch()} puts many writes in one commit, and {@link HistoryImport} loads a sorted
 * stream with the bulk loader.
 *
 * <p>Reads run on snapshots and never wait for the writer; writes from several threads take turns
 * (the store has one writer), each waiting at most the store's write timeout
 * ({@link io.mvbt.WriteTimeoutException} after it). All methods are thread-safe.
 *
 * <p>Layout: the entries live in the tree named after the table ({@value #DEFAULT_NAME} by
 * default), 16-byte hash to a compact value ({@code EntryCodec}); a second tree, {@code <name>.meta},
 * holds a format marker and the number of remembered entries. That count is kept rather than a
 * second tree of remembered entries because the common operations are the article write and the
 * miss: with one tree, a miss is one descent and a write one descent plus the insert, and a new
 * article leaves the counter alone (articles = tree count - remembered). Only
 * {@code remember}, {@code replace} and expiry, which change how many entries are remembered,
 * rewrite the counter, in the same transaction.
 */
public final class HistoryTable implements AutoCloseable {
    /** The tree name used when none is given. */
    public static final String DEFAULT_NAME = "history";

    static final byte[] FORMAT_KEY = "format".getBytes(StandardCharsets.US_ASCII);
    static final byte[] FORMAT_VALUE = "mvbt-history 1".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REMEMBERED_KEY = "remembered".getBytes(StandardCharsets.US_ASCII);

    private final Store store;
    private final boolean ownsStore;
    private final String name;
    final Tree entries;
    final Tree meta;
    private final Durability durability;
    final PresenceFilters filters;
    private volatile boolean closed;

    private HistoryTable(Store store, boolean ownsStore, String name, Durability durability) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.name = name;
        this.entries = store.tree(name);
        this.meta = store.tree(name + ".meta");
        this.durability = durability;
        this.filters = new PresenceFilters(this, store);
        prepare();
        filters.rebuild();
    }

    /**
     * Checkpoints of a table in a file of its own: with the redo log, a checkpoint only bounds the
     * log that a power cut leaves to replay and the pages it pins, so it runs as seldom as the
     * kernel writes dirty pages back on its own. At 10,000,000 articles (a sync every 10,000) a 5 s
     * interval wrote 203,000 articles/s and 8.3 GB to storage, this one 257,000/s and 3.9 GB.
     */
    static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(30);

    /**
     * Opens (or creates) a history table in a store file of its own, committing in NORMAL durability
     * with a redo log ({@link StoreOptions#redoLog}) and a checkpoint every 30 s: {@link #sync()}
     * syncs the log's records of the articles since the last sync, and checkpoints write the pages
     * they landed on later, once.
     */
    public static HistoryTable open(Path path) {
        return open(path, storeOptions());
    }

    /**
     * The options {@link #open(Path)} opens its store with (NORMAL durability, a redo log, a
     * checkpoint every 30 s), to start from when a table's store needs others (a shadow directory).
     */
    public static StoreOptions storeOptions() {
        return StoreOptions.defaults().durability(Durability.NORMAL).redoLog(true).checkpointInterval(CHECKPOINT_INTERVAL);
    }

    /** Opens (or creates) a history table in a store file of its own; commits as {@code options} say. */
    public static HistoryTable open(Path path, StoreOptions options) {
        Store store = Store.open(path, options);
        try {
            return new HistoryTable(store, true, DEFAULT_NAME, options.durability());
        } catch (RuntimeException | Error e) {
            store.close();
            throw e;
        }
    }

    /** Opens (or creates) the table {@value #DEFAULT_NAME} in an open store; commits in NORMAL durability. */
    public static HistoryTable open(Store store) {
        return open(store, DEFAULT_NAME, Durability.NORMAL);
    }

    /**
     * Opens (or creates) the table {@code name} in an open store, which stays the caller's to close.
     * Each write commits with {@code durability}.
     */
    public static HistoryTable open(Store store, String name, Durability durability) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a history table needs a name");
        }
        if (durability == null) {
            throw new IllegalArgumentException("durability is null");
        }
        return new HistoryTable(store, false, name, durability);
    }

    /** Creates the trees if this is a new table; checks the format marker if not. */
    private void prepare() {
        try (Snapshot s = store.beginRead()) {
            if (s.hasTree(entries)) {
                byte[] format = s.hasTree(meta) ? s.get(meta, FORMAT_KEY) : null;
                if (format == null || !Arrays.equals(format, FORMAT_VALUE)) {
                    throw new HistoryException("tree '" + name + "' exists but is not a history table (its '"
                            + meta.name() + "' tree has no format marker '"
                            + new String(FORMAT_VALUE, StandardCharsets.US_ASCII) + "')");
                }
                return;
            }
        }
        try (WriteTxn tx = store.beginWrite()) {
            if (!tx.hasTree(entries)) {
                tx.createTreeIfAbsent(entries.name());
                tx.createTreeIfAbsent(meta.name());
                tx.put(meta, FORMAT_KEY, FORMAT_VALUE);
                tx.put(meta, REMEMBERED_KEY, longBytes(0));
                tx.commit(Durability.SYNC);
            }
        }
    }

    /** The store holding the table. */
    public Store store() {
        return store;
    }

    /** The table's name (the name of its entries tree). */
    public String name() {
        return name;
    }

    /** The durability of each write's commit. */
    public Durability durability() {
        return durability;
    }

    void checkOpen() {
        if (closed) {
            throw new ClosedException("history table '" + name + "' is closed");
        }
    }

    // ------------------------------------------------------------------ writing

    /**
     * Stores an article under {@code messageId}, in one commit. Returns false, changing nothing,
     * if the Message-ID is already there (as an article or remembered).
     */
    public boolean write(String messageId, long arrived, long posted, long expires, StorageToken token) {
        return write(MessageIdHash.of(messageId), arrived, posted, expires, token);
    }

    /** {@link #write(String, long, long, long, StorageToken)} by hash. */
    public boolean write(byte[] hash, long arrived, long posted, long expires, StorageToken token) {
        try (HistoryBatch batch = beginBatch()) {
            boolean stored = batch.write(hash, arrived, posted, expires, token);
            if (stored) {
                batch.commit();
            }
            return stored;
        }
    }

    /**
     * Remembers {@code messageId} (seen, no article), in one commit. Returns false, changing
     * nothing, if the Message-ID is already there: an article is never downgraded.
     */
    public boolean remember(String messageId, long arrived, long posted) {
        return remember(MessageIdHash.of(messageId), arrived, posted);
    }

    /** {@link #remember(String, long, long)} by hash. */
    public boolean remember(byte[] hash, long arrived, long posted) {
        try (HistoryBatch batch = beginBatch()) {
            boolean stored = batch.remember(hash, arrived, posted);
            if (stored) {
                batch.commit();
            }
            return stored;
        }
    }

    /**
     * Stores the entry whatever was there, in one commit: an article, or with a null
     * {@code token} a remembered entry (its expiry is dropped). Returns whether an entry was there.
     */
    public boolean replace(String messageId, long arrived, long posted, long expires, StorageToken token) {
        return replace(MessageIdHash.of(messageId), arrived, posted, expires, token);
    }

    /** {@link #replace(String, long, long, long, StorageToken)} by hash. */
    public boolean replace(byte[] hash, long arrived, long posted, long expires, StorageToken token) {
        try (HistoryBatch batch = beginBatch()) {
            boolean existed = batch.replace(hash, arrived, posted, expires, token);
            batch.commit();
            return existed;
        }
    }

    /**
     * Begins a batch: many writes in one transaction, committed by {@link HistoryBatch#commit()}
     * (for rebuilds). The batch holds the store's writer until it ends.
     */
    public HistoryBatch beginBatch() {
        checkOpen();
        return new HistoryBatch(this, store.beginWrite());
    }

    // ------------------------------------------------------------------ reading

    /** A reader on a snapshot of the newest revision; close it promptly. */
    public HistoryReader reader() {
        checkOpen();
        return new HistoryReader(this, store.beginRead());
    }

    /** Whether {@code messageId} is present, as an article or remembered. */
    public boolean check(String messageId) {
        return check(MessageIdHash.of(messageId));
    }

    /** {@link #check(String)} by hash. */
    public boolean check(byte[] hash) {
        try (HistoryReader r = reader()) {
            return r.check(hash);
        }
    }

    /** The article stored under {@code messageId}, or null if there is none (absent or only remembered). */
    public HistoryEntry lookup(String messageId) {
        return lookup(MessageIdHash.of(messageId));
    }

    /** {@link #lookup(String)} by hash. */
    public HistoryEntry lookup(byte[] hash) {
        try (HistoryReader r = reader()) {
            return r.lookup(hash);
        }
    }

    /** The entry under {@code messageId} in any form (article or remembered), or null. */
    public HistoryEntry entry(String messageId) {
        return entry(MessageIdHash.of(messageId));
    }

    /** {@link #entry(String)} by hash. */
    public HistoryEntry entry(byte[] hash) {
        try (HistoryReader r = reader()) {
            return r.entry(hash);
        }
    }

    /**
     * Visits every entry of one snapshot in hash order (unsigned bytes) until {@code visitor}
     * returns false; returns the number visited. Writers go on meanwhile; the walk does not see them.
     */
    public long walk(Predicate<? super HistoryEntry> visitor) {
        try (HistoryReader r = reader()) {
            return r.walk(visitor);
        }
    }

    /** Entry counts of the newest revision, in O(1). */
    public HistoryCounts counts() {
        try (HistoryReader r = reader()) {
            return r.counts();
        }
    }

    // ------------------------------------------------------------------ expiry and durability

    /**
     * Expires in place: articles {@code policy} no longer keeps become remembered, remembered
     * entries older than the remember horizon are deleted; in short transactions of
     * {@link ExpireOptions#pageSize()} entries, so writers wait at most one of them.
     */
    public ExpireReport expire(ExpiryPolicy policy, ExpireOptions options) {
        checkOpen();
        ExpireReport report = new Expirer(this, policy, options).run();
        if (report.deleted() > 0) {
            // Deleted hashes stay in the filter as false positives until it is rebuilt.
            filters.rebuild();
        }
        return report;
    }

    /** Makes every commit so far durable (a checkpoint). */
    public void sync() {
        checkOpen();
        store.sync();
    }

    /** Closes the table, and the store if the table opened it. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            filters.close();
            if (ownsStore) {
                store.close();
            }
        }
    }

    static byte[] longBytes(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }

    static long bytesLong(byte[] b) {
        if (b == null || b.length != 8) {
            throw new HistoryException("the remembered-entry counter is damaged ("
                    + (b == null ? "missing" : b.length + " bytes") + ")");
        }
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[i] & 0xFF);
        }
        return v;
    }
}
