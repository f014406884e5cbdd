// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;


import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import io.mvbt.pagestore.PageStore;

/**
 * How a store is opened. Immutable; each setter returns a changed copy.
 *
 * <p>Every default is listed at {@link #defaults()}.
 *
 * <p>Why 5 seconds: a checkpoint writes back the mapped pages, and the next store to each of them
 * takes a write fault (a few microseconds, more on virtual machines; {@link #prefault} moves most of
 * them off the writer); right after a checkpoint, every leaf rewritten
 * for the first time also needs a fresh page, since its old copy belongs to the durable revision.
 * Short intervals therefore cost a fault per commit under random writes. LMDB without sync and
 * RocksDB without WAL sync leave durability to the kernel's writeback, about 30 seconds.
 *
 * <p>Why 1 GiB: random one-key commits into a store of a few million entries dirty a fresh page
 * almost every commit, 256 MiB in under a second; checkpoints that often cost a third of the write
 * rate.
 * What a larger window costs is disk: pages a checkpoint window rewrites stay pinned until it ends.
 */
public final class StoreOptions {
    /** Reader slots by default: with the lock file's 512-byte header, 64 KiB. */
    static final int DEFAULT_MAX_READERS = 1016;
    static final int DEFAULT_PAGE_SIZE = 4096;
    /** {@link #pageSize} when the options left it to the store. */
    private static final int UNCHOSEN = 0;

    private final int pageSize;
    private final Durability durability;
    private final Duration checkpointInterval;
    private final long checkpointBytes;
    private final Duration writeTimeout;
    private final SlowReaderPolicy slowReaders;
    private final int maxReaders;
    private final boolean sharedWriters;
    private final boolean prefault;
    private final boolean checked;
    private final Path shadowDirectory;
    private final boolean compactAtClose;
    private final boolean redoLog;
    private final boolean replayUntilLogDamage;

    private StoreOptions(int pageSize, Durability durability, Duration checkpointInterval, long checkpointBytes,
            Duration writeTimeout, SlowReaderPolicy slowReaders, int maxReaders, boolean sharedWriters,
            boolean prefault, boolean checked, Path shadowDirectory, boolean compactAtClose, boolean redoLog,
            boolean replayUntilLogDamage) {
        this.pageSize = pageSize;
        this.durability = durability;
        this.checkpointInterval = checkpointInterval;
        this.checkpointBytes = checkpointBytes;
        this.writeTimeout = writeTimeout;
        this.slowReaders = slowReaders;
        this.maxReaders = maxReaders;
        this.sharedWriters = sharedWriters;
        this.prefault = prefault;
        this.checked = checked;
        this.shadowDirectory = shadowDirectory;
        this.compactAtClose = compactAtClose;
        this.redoLog = redoLog;
        this.replayUntilLogDamage = replayUntilLogDamage;
    }

    /**
     * The options a store gets when it is given none:
     *
     * <table>
     * <caption>Defaults</caption>
     * <tr><th>option</th><th>default</th></tr>
     * <tr><td>{@link #pageSize(int)}</td><td>4096 bytes for a new store; an existing one opens with its own</td></tr>
     * <tr><td>{@link #durability(Durability)}</td><td>{@link Durability#SYNC}: every commit is durable when
     *     {@code commit()} returns (the README's throughput figures use {@link Durability#NORMAL})</td></tr>
     * <tr><td>{@link #checkpointInterval(Duration)}</td><td>5 seconds (NORMAL commits)</td></tr>
     * <tr><td>{@link #checkpointBytes(long)}</td><td>1 GiB of newly written pages (NORMAL commits)</td></tr>
     * <tr><td>{@link #writeTimeout(Duration)}</td><td>10 seconds for {@link Store#beginWrite()} (and sync,
     *     check, compact and close) to wait for the running write transaction</td></tr>
     * <tr><td>{@link #slowReaders(SlowReaderPolicy)}</td><td>{@link SlowReaderPolicy#none()}: old snapshots
     *     are neither reported nor expired</td></tr>
     * <tr><td>{@link #maxReaders(int)}</td><td>1016 snapshots open at once (a 64 KiB lock file)</td></tr>
     * <tr><td>{@link #sharedWriters(boolean)}</td><td>off: one writing process</td></tr>
     * <tr><td>{@link #prefault(boolean)}</td><td>on</td></tr>
     * <tr><td>{@link #checked(boolean)}</td><td>off, unless the system property {@code mvbt.checked} is
     *     {@code true}</td></tr>
     * <tr><td>{@link #shadowDirectory(Path)}</td><td>none</td></tr>
     * <tr><td>{@link #compactAtClose(boolean)}</td><td>on</td></tr>
     * <tr><td>{@link #redoLog(boolean)}</td><td>off</td></tr>
     * <tr><td>{@link #replayUntilLogDamage(boolean)}</td><td>off: a damaged redo log refuses the open</td></tr>
     * </table>
     */
    public static StoreOptions defaults() {
        return new StoreOptions(UNCHOSEN, Durability.SYNC, Duration.ofSeconds(5), 1L << 30, Duration.ofSeconds(10),
                SlowReaderPolicy.none(), DEFAULT_MAX_READERS, false, true,
                Boolean.getBoolean("mvbt.checked"), null, true, false, false);
    }

    /**
     * Page size of a store created with these options: a power of two, 4096 to 65536 (default 4096).
     * A store keeps the page size it was created with: opening an existing store file with a page
     * size chosen here that differs from the file's throws {@link IllegalArgumentException} (without
     * this option, a store opens with its own page size; {@link Store#copyTo} makes a copy with
     * another). A {@link Store#open(PageStore, StoreOptions) page store of one's own} has the page
     * size it was made with, and this option is not consulted there.
     */
    public StoreOptions pageSize(int pageSize) {
        if (!PageStore.validPageSize(pageSize)) {
            throw new IllegalArgumentException("page size must be a power of two from " + PageStore.MIN_PAGE_SIZE
                    + " to " + PageStore.MAX_PAGE_SIZE + ", not " + pageSize);
        }
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, shadowDirectory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /**
     * Default durability of commits. With {@link Durability#SYNC} a file store also builds each
     * write transaction's pages in private memory and writes them with positional writes at commit,
     * since each sync leaves the pages it wrote clean and a store into a clean mapped page faults.
     */
    public StoreOptions durability(Durability durability) {
        return new StoreOptions(pageSize, Objects.requireNonNull(durability), checkpointInterval, checkpointBytes,
                writeTimeout, slowReaders, maxReaders, sharedWriters, prefault, checked, shadowDirectory, compactAtClose,
                redoLog, replayUntilLogDamage);
    }

    /** Longest time between checkpoints in {@link Durability#NORMAL} mode (while there are commits). */
    public StoreOptions checkpointInterval(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("checkpoint interval must be positive");
        }
        return new StoreOptions(pageSize, durability, interval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, shadowDirectory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /**
     * Bytes of newly written pages (not counting pages rewritten since the last checkpoint) after
     * which a checkpoint starts early in {@link Durability#NORMAL} mode. It also bounds a writer's
     * {@link #shadowDirectory shadow} (at most 1 GiB), whose half filled starts a checkpoint too.
     */
    public StoreOptions checkpointBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("checkpoint bytes must be positive");
        }
        return new StoreOptions(pageSize, durability, checkpointInterval, bytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, shadowDirectory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /** How long {@link Store#beginWrite()} waits for the running write transaction. */
    public StoreOptions writeTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("write timeout must not be negative");
        }
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, timeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, shadowDirectory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /** What to do about snapshots that hold old revisions too long (default: nothing). */
    public StoreOptions slowReaders(SlowReaderPolicy policy) {
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout,
                Objects.requireNonNull(policy), maxReaders, sharedWriters, prefault, checked, shadowDirectory,
                compactAtClose, redoLog, replayUntilLogDamage);
    }

    /**
     * Snapshots that may be open at once, in all processes together (default 1016, 64 bytes each in
     * the lock file, which with its 512-byte header makes a sole writer's lock file 64 KiB; writers
     * that take turns add their 2 MiB log of freed pages). It takes effect when the reader table is created: when no process has the
     * store open; processes that open it later share the table as it is.
     */
    public StoreOptions maxReaders(int maxReaders) {
        if (maxReaders < 1 || maxReaders > 1 << 20) {
            throw new IllegalArgumentException("max readers must be from 1 to " + (1 << 20) + ", not " + maxReaders);
        }
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, shadowDirectory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /**
     * Lets writers in several processes share the store, one write transaction at a time (a news
     * server's intake and its expiry job): every process that writes must open it so. The writer
     * lock is held per transaction, and {@link Store#beginWrite()} waits up to the write timeout
     * for another process's transaction; each transaction starts from the newest commit and free
     * space, whichever process made them. Checkpoints, {@link Store#sync()}, {@link Store#check()}
     * and close take a turn as well. Costs: a lock system call pair per transaction, and a reload
     * of the free space when another process wrote since.
     */
    public StoreOptions sharedWriters(boolean shared) {
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, shared, prefault, checked, shadowDirectory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /**
     * Whether a background thread takes, after each checkpoint, the write faults of the free pages
     * the writer will allocate next (default: yes, for a file store that one process writes). A
     * checkpoint writes the pages back, and the first store to each then faults (dearest on virtual
     * machines). The thread touches them in the order the writer will take them, on another core
     * or while the writer is idle, at most 1,024 pages ahead of the
     * writer's use; pages the file grows by join them, as they too fault on their first store.
     * Costs: that thread's time, and up to those 1,024 pages written back once more when the
     * writer stops using them.
     */
    public StoreOptions prefault(boolean on) {
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, on, checked, shadowDirectory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /**
     * Whether each commit is checked before it is published (default: off, or what the system
     * property {@code mvbt.checked} says; the project's tests turn it on). The check covers every
     * page the commit wrote and the invariants that span pages: key order against the parent's
     * separators, no key on a branch's first entry, entry counts, inline-only marks, overflow
     * chains, every written page reached once and in use, none leaked. A commit that fails it
     * throws {@link io.mvbt.CorruptionException} naming the revision and the page, and
     * the store keeps the revision before it. The work is the pages written and their children:
     * in our runs, a one-key commit costs a few times as much as unchecked.
     */
    public StoreOptions checked(boolean on) {
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, on, shadowDirectory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /** The page size a new store gets: the one chosen, else 4096. */
    public int pageSize() {
        return pageSize == UNCHOSEN ? DEFAULT_PAGE_SIZE : pageSize;
    }

    /** Whether {@link #pageSize(int)} chose the page size (then an existing store must have it). */
    boolean pageSizeChosen() {
        return pageSize != UNCHOSEN;
    }

    public Durability durability() {
        return durability;
    }

    public Duration checkpointInterval() {
        return checkpointInterval;
    }

    public long checkpointBytes() {
        return checkpointBytes;
    }

    public Duration writeTimeout() {
        return writeTimeout;
    }

    public SlowReaderPolicy slowReaders() {
        return slowReaders;
    }

    public int maxReaders() {
        return maxReaders;
    }

    public boolean sharedWriters() {
        return sharedWriters;
    }

    /**
     * Where a file store's sole writer keeps the pages it wrote since the last checkpoint (default:
     * none, null). The directory should be a memory file system (tmpfs, {@code /dev/shm}): the
     * writer then never stores into the store file's mapping, so checkpoints make its stores fault
     * nowhere and spare the readers' TLBs, and a page many commits rewrite is written to the file
     * once per checkpoint. A killed writer loses nothing (the next open reads those pages and writes
     * them into the store file); a reboot or power cut loses them as it loses the page cache, so
     * {@link Durability} promises what it promised. A read-only store beside such a writer must name
     * the same directory. Without one, or when it is full, the writer stores into the mapping.
     *
     * <p>Measured on our 2-core machine (docs/bench-notes/2026-12-06.md): at 10,000,000 entries it
     * halves the page faults per commit, makes overwrite 22% faster and files 23% to 30% smaller,
     * but fillrandom 17% slower; one-key commits into a store of a few million entries cost 10% to
     * 15% more. It stays off by default until checkpoints cost the writer less.
     */
    public StoreOptions shadowDirectory(Path directory) {
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, directory, compactAtClose, redoLog, replayUntilLogDamage);
    }

    /**
     * Whether close moves the pages in use down so that the file ends at its last page still in use
     * (default: yes). It does when an eighth of the file and 1 MiB would go: one commit copies the
     * pages above what the store needs (and the branch pages above them) into free ones, then a
     * checkpoint. Pages that a named revision or a snapshot of an older revision reaches stay where
     * they are, and the file ends after the last of them. After ten million random inserts that
     * took 3.1 s and made the file 59% smaller. Off, close gives back only the free tail.
     */
    public StoreOptions compactAtClose(boolean on) {
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, shadowDirectory, on, redoLog, replayUntilLogDamage);
    }

    /**
     * Whether the sole writer of a file keeps a redo log (default: no): every commit appends a
     * record of its changes to {@code STORE.redo-*} files beside the store, and a SYNC commit or
     * {@link Store#sync()} syncs that log instead of writing every page the commits touched. The
     * pages reach the file at checkpoints, each of which deletes the log segments it covers; an
     * open after a crash or power cut replays the records after the last checkpoint. Pays when
     * small commits that must be durable land on scattered pages (a history table's sync every
     * 10,000 articles); a transaction of more than 64 MiB of changes is made durable by syncing its
     * pages instead. A store whose log was left by a crash is replayed by the next writer however
     * it opens; read-only opens see the file as the last checkpoint and the commits since left it.
     * Refused together with {@link #sharedWriters}; stores in memory and on remote page stores
     * ignore it.
     */
    public StoreOptions redoLog(boolean on) {
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, shadowDirectory, compactAtClose, on, replayUntilLogDamage);
    }

    public boolean redoLog() {
        return redoLog;
    }

    /**
     * Whether a writer opens a store whose redo log is damaged by replaying what can be read (default:
     * no, the open refuses with a {@link io.mvbt.CorruptionException} that says where the damage is and
     * which revisions are at stake, and changes nothing). With this on, the records up to the damage
     * are replayed, the segments are set aside as {@code STORE.redo-*.damaged} instead of deleted,
     * and the damage is logged and listed by {@link Store#droppedRevisions()}: commits the log alone
     * held past the damage are lost. For an operator who has read the refusal and chosen this.
     */
    public StoreOptions replayUntilLogDamage(boolean on) {
        return new StoreOptions(pageSize, durability, checkpointInterval, checkpointBytes, writeTimeout, slowReaders,
                maxReaders, sharedWriters, prefault, checked, shadowDirectory, compactAtClose, redoLog, on);
    }

    public boolean replayUntilLogDamage() {
        return replayUntilLogDamage;
    }

    public boolean compactAtClose() {
        return compactAtClose;
    }

    public Path shadowDirectory() {
        return shadowDirectory;
    }

    public boolean prefault() {
        return prefault;
    }

    public boolean checked() {
        return checked;
    }
}
