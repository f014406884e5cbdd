package io.mvbt.revisions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.agrona.collections.LongArrayList;

import io.mvbt.btree.TreeEditor;
import io.mvbt.btree.TreeLimits;
import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.CorruptionException;
import io.mvbt.pagestore.FilePageStore;
import io.mvbt.pagestore.MemoryPageStore;
import io.mvbt.pagestore.NativeAccess;
import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.SharedPages;
import io.mvbt.pagestore.StorageException;

/**
 * A store of named B+trees with one writer and any number of readers. Every commit publishes an
 * immutable revision; {@link #beginRead()} opens a snapshot of the newest one; pages that no open
 * snapshot (and no durable revision) can reach are reused.
 *
 * <pre>{@code
 * try (Store store = Store.open(path, StoreOptions.defaults())) {
 *     try (WriteTxn tx = store.beginWrite()) {
 *         Tree users = tx.createTreeIfAbsent("users");
 *         tx.put(users, key, value);
 *         tx.commit();
 *     }
 *     try (Snapshot s = store.beginRead()) {
 *         byte[] v = s.get(store.tree("users"), key);
 *     }
 * }
 * }</pre>
 *
 * All methods are thread-safe. A store file may be open for writing in one place at a time: a
 * second open, in this process or another, fails with
 * {@link io.mvbt.pagestore.StoreLockedException}.
 */
public final class Store implements AutoCloseable {
    private static final VarHandle ROOTS = MethodHandles.arrayElementVarHandle(TreeRoot[].class);

    private final PageStore pages;
    private final StoreOptions options;
    private final TreeLimits limits;
    private final VerifiedPages verified;
    private final Checksums checksums;
    private final PageAccess access;
    /** Reads pages that may still lack checksums: the ones this process wrote since the last checkpoint. */
    private final PageAccess sealer;
    private final FreeSpace space;
    private final FreeMap freeMap;
    private final TxnPages txnPages;
    private final TreeEditor editor;
    private final WriteTxn.Scratch txnScratch = new WriteTxn.Scratch();
    private final ReaderRegistry registry;
    /** Opened with {@link #openReadOnly}: follows the writer's published revisions, never writes. */
    private final boolean readOnly;
    /** The file, if writers of several processes take turns on it ({@link StoreOptions#sharedWriters}); else null. */
    private final FilePageStore sharedFile;
    /** The announcement this process's writer state matches (writers that take turns; in a turn only). */
    private long knownMeta;
    /** Runs freed by commits, told between writers that take turns; null otherwise. */
    private final FreedLog freedLog;
    /** The entries of {@link #freedLog} this process has accounted for (in a turn only). */
    private long freedSeen;
    /** For pages shared with other hosts (on Redis): readers there, and a reader's meta; else null. */
    private final SharedPages remote;
    /** How often the writer looks at the registrations of readers on other hosts, at most. */
    private static final long REMOTE_LOOK_NANOS = 200_000_000L;
    /** Serializes a remote reader's fetches and reads of the meta slots and its registrations. */
    private final Object followLock = new Object();
    /** Scratch for the revisions a remote reader holds (under {@link #followLock}). */
    private long[] remoteHeld = new long[0];
    /**
     * Revisions published and then replaced, with when (nanoTime): readers elsewhere may hold them.
     * Filled where the durable revision moves (the writer and the checkpointer), read by the writer.
     */
    private final LongArrayList replaced = new LongArrayList();
    /** The newest meta a read-only store has followed, and its revision. */
    private volatile Followed followed;
    /** Owns the meta slots, the newest and the durable revision: every meta is written there. */
    private final Publisher publisher;
    /** Times beginWrite found another write transaction open and had to wait. */
    private final java.util.concurrent.atomic.AtomicLong writerWaits = new java.util.concurrent.atomic.AtomicLong();
    private final Object checkpointLock = new Object();
    private final WriterPermit writer;
    /** The page store's span of each registry slot this process holds (see {@link PageStore#beginSpan}). */
    private final long[] slotSpans;
    private final ConcurrentHashMap<String, Tree> trees = new ConcurrentHashMap<>();
    private final AtomicInteger treeIds = new AtomicInteger();
    /** The internal tree listing detached subtrees not yet freed. */
    private final Tree garbageTree = new Tree(Garbage.NAME, treeIds.getAndIncrement(), this, true);
    private final Checkpointer checkpointer;
    /** Takes the write faults of the pages the writer allocates after a checkpoint; null if none are taken. */
    private final Prefaulter prefaulter;
    /** Counts checkpoints, so that the writer learns that its hot pages were cleaned. */
    private volatile long checkpoints;
    /** The value of {@link #checkpoints} the writer last saw (writer-owned). */
    private long checkpointsSeen;
    /** Commits since the free map was last flushed (writer-owned). */
    private long commitsSinceFlush;
    /** Commits after a flush from which a quarter-full set of flips is flushed ({@link #freeMapFlushDue}). */
    static final int FLIP_SETTLE_COMMITS = 64;
    private volatile boolean closed;
    /** Set by the writer as it closes. */
    private boolean closing;
    private volatile Throwable failure;
    /**
     * The first problem {@link #check} found, or null. From then on the store writes nothing but the
     * checkpoints of commits already made: a free map that calls a page in use free would hand that
     * page to the next write, and the file's end to a shrink.
     */
    private volatile String damage;
    /** Newer revisions that recovery found incomplete or damaged and did not open at (see {@link #droppedRevisions}). */
    private volatile List<String> dropped = List.of();
    /** Held revisions, collected by the writer (writer-owned scratch). */
    private long[] held = new long[128];
    /** Oldest revision a snapshot or checkpoint held at the last look, or -1 (writer thread only). */
    private long oldestReaderRevision = -1;
    private long lastSlowReaderScan = System.nanoTime() - 1_000_000_000L;
    private long lastStaleScan = System.nanoTime();
    /** Write transactions since the clock was last read for the stale-reader scan (writer thread only). */
    private int sinceStaleClock;

    /**
     * A writer on shared pages: the revision it opened at, while a sweep of pages left behind by
     * earlier writers is still to do, else -1; and when it opened (writer thread only).
     */
    private long sweepBelow = -1;
    private long openedNanos;
    /** Whether a look at the readers elsewhere found none that can reach the pages to sweep. */
    private boolean sweepReady;

    /** A meta announced in the reader table ({@code sequence << 2 | slot}) and the revision it holds. */
    private record Followed(long meta, Revision revision) {
    }

    private static final System.Logger LOG = System.getLogger("io.mvbt.readers");

    private Store(PageStore pages, StoreOptions options, boolean create) {
        this.pages = pages;
        this.options = options;
        FilePageStore file = pages instanceof FilePageStore ? (FilePageStore) pages : null;
        this.registry = file != null ? ReaderRegistry.shared(file.lockFile())
                : ReaderRegistry.inMemory(options.maxReaders());
        this.remote = pages.remote();
        this.readOnly = file != null && file.readOnly() || remote != null && remote.readOnly();
        this.sharedFile = file != null && file.shared() ? file : null;
        this.freedLog = sharedFile != null ? new FreedLog(sharedFile.lockFile()) : null;
        this.limits = new TreeLimits(pages.pageSize());
        this.verified = pages.durable() ? new VerifiedPages() : null;
        this.checksums = new Checksums(pages);
        // Other processes read pages the writer has not sealed yet: their headers and structure are checked.
        this.access = new PageAccess(pages, checksums, limits, verified, TxnPages.maxRunPages(pages),
                readOnly || sharedFile != null);
        this.sealer = access.withTrustUnsealed();
        this.space = new FreeSpace(pages);
        this.freeMap = new FreeMap(pages.pageSize());
        // Where every commit syncs, each leaves its pages clean: build the next ones off the mapping.
        boolean syncs = options.durability() == Durability.SYNC && pages.durable() && pages.reusesPages();
        this.txnPages = new TxnPages(pages, access, space, verified, syncs ? new PrivatePages(pages, checksums) : null,
                this::writeFailed);
        this.publisher = new Publisher(pages, checksums, registry, this::announced);
        this.editor = new TreeEditor(limits);
        this.writer = new WriterPermit(pages);
        this.slotSpans = new long[registry.capacity()];
        long span = pages.beginSpan();
        try {
            if (readOnly) {
                follow();
            } else if (create) {
                create();
            } else {
                recover();
            }
            if (!readOnly) {
                afterOpen();
            }
        } finally {
            pages.endSpan(span);
        }
        if (remote != null && readOnly) {
            String where = pages.describe();
            remote.onLapse(revisions -> expireLapsed(where, revisions));
        }
        if (remote != null && !readOnly && !create) {
            sweepBelow = latest().revision;
            openedNanos = System.nanoTime();
            // Readers elsewhere may hold any older revision until a look at them succeeds.
            space.holdersKnown(false);
        }
        if (sharedFile != null) {
            space.logFreesTo(freedLog);
            endTurn();
        }
        this.checkpointer = pages.durable() && !readOnly ? new Checkpointer(this, options) : null;
        this.prefaulter = checkpointer != null && options.prefault() && pages.prefaults() && sharedFile == null
                ? new Prefaulter(pages, describe()) : null;
        if (prefaulter != null) {
            space.reportUseTo(prefaulter);
            prefaulter.start();
        }
        if (checkpointer != null) {
            checkpointer.start();
        }
    }

    /** Opens (or creates) a store file with default options. */
    public static Store open(Path path) {
        return open(path, StoreOptions.defaults());
    }

    /** Opens (or creates) a store file for reading and writing. */
    public static Store open(Path path, StoreOptions options) {
        NativeAccess.require();
        FilePageStore file = options.sharedWriters()
                ? FilePageStore.openShared(path, options.pageSize(), MetaPage::detectPageSize, options.maxReaders(),
                        options.writeTimeout().toNanos())
                : FilePageStore.open(path, options.pageSize(), MetaPage::detectPageSize, options.maxReaders());
        try {
            return new Store(file, options, file.created());
        } catch (RuntimeException | Error e) {
            file.close();
            throw e;
        }
    }

    /** Opens an existing store file for reading only, with default options. */
    public static Store openReadOnly(Path path) {
        return openReadOnly(path, StoreOptions.defaults());
    }

    /**
     * Opens an existing store file for reading only, beside the process that writes it (or none):
     * snapshots see the newest revision its writer has committed when they open. Takes no writer
     * lock and never writes the store file; its snapshots are registered in the lock file beside
     * it, so the writer reuses no page they can reach. Writes and {@link #sync()} throw
     * {@link ReadOnlyStoreException}. Processes must share the host's pid namespace.
     */
    public static Store openReadOnly(Path path, StoreOptions options) {
        NativeAccess.require();
        FilePageStore file = FilePageStore.openReadOnly(path, MetaPage::detectPageSize, options.maxReaders());
        try {
            return new Store(file, options, false);
        } catch (RuntimeException | Error e) {
            file.close();
            throw e;
        }
    }

    /**
     * Opens a store over a page store of one's own (pages on Redis, say): an empty page store (no
     * pages) gets a new store, any other is recovered from what it holds; a page store that only
     * reads beside a writer elsewhere ({@link SharedPages#readOnly()}) gives a read-only store that
     * follows that writer, as {@link #openReadOnly(Path)} does for a file. The store owns the page
     * store from then on and closes it on {@link #close()}, also if this open fails.
     */
    public static Store open(PageStore pages, StoreOptions options) {
        NativeAccess.require();
        try {
            return new Store(pages, options, pages.pageCount() == 0);
        } catch (RuntimeException | Error e) {
            pages.close();
            throw e;
        }
    }

    /**
     * A store over any page store: {@code create} for a new one, else recovered from what the page
     * store holds. For tests that bring their own storage (a simulated disk, say).
     */
    static Store over(PageStore pages, StoreOptions options, boolean create) {
        NativeAccess.require();
        return new Store(pages, options, create);
    }

    /** A store in memory with default options: same API, nothing durable. */
    public static Store inMemory() {
        return inMemory(StoreOptions.defaults());
    }

    public static Store inMemory(StoreOptions options) {
        NativeAccess.require();
        return new Store(new MemoryPageStore(options.pageSize()), options, true);
    }

    // ------------------------------------------------------------------ creation and recovery

    private void create() {
        publisher.storeId(new java.security.SecureRandom().nextLong());
        pages.extend(Math.max(pages.pageCount(), PageStore.META_SLOTS));
        space.loaded();
        Revision first = new Revision(0, 0, new TreeRoot(), FreshRoots.NONE, pages.pageCount(),
                System.currentTimeMillis(), 0, 0, 0, new TreeRoot[0]);
        publisher.publishFirst(first, space.flips, pages::sync);
    }

    private void recover() {
        MetaPage.Record m = adopt();
        if (!m.steady()) {
            checkpoint(access.withTrustUnsealed());
        } else if (BootId.isCurrent(m.bootHigh, m.bootLow)) {
            // Its writer may have died between writing it and syncing it.
            syncOrFail();
        }
        announceHead();
    }

    /**
     * Loads the newest meta that can be trusted: the meta slots, the free space and the newest
     * revision. Newer metas that were rejected are wiped first, so that no later recovery weighs
     * them and no meta written from now on lands in a slot that is wiped afterwards.
     */
    private MetaPage.Record adopt() {
        List<MetaPage.Record> metas = Recovery.readAll(pages, checksums);
        if (!metas.isEmpty()) {
            publisher.storeId(metas.get(0).storeId);
        }
        Recovery.Choice choice = Recovery.choose(pages, metas, access);
        MetaPage.Record m = choice.meta();
        if (!choice.dropped().isEmpty()) {
            dropped = choice.dropped();
            System.getLogger("io.mvbt.recovery").log(System.Logger.Level.WARNING, describe() + " opened at revision "
                    + m.revision + "; newer revisions were dropped: " + String.join("; ", dropped));
        }
        Revision opened = revisionOf(m, 0);
        if (publisher.adopt(metas, m, opened)) {
            syncOrFail();
        }
        PageAccess loader = (m.steady() ? access : access.withTrustUnsealed()).through(opened.sealedThrough);
        freeMap.set(m.freeRoot, m.freeRevision, m.freeHeight);
        freeMap.load(loader, space, m.pageCount);
        for (long flip : m.flips) {
            space.loadFlip(flip, m.pageCount);
        }
        space.loaded();
        return m;
    }

    /** Announces the newest meta in the reader table, unless it is announced already. */
    private void announceHead() {
        long word = publisher.announceHead();
        if (sharedFile != null) {
            knownMeta = word;
            followed = new Followed(word, latest());
        }
    }

    /**
     * Writers that take turns, at the start of a turn: if another process wrote since this one's
     * last turn, its commits and free space are loaded, and free pages wait for held revisions
     * that may reach them (see {@link FreeSpace#pendAfterCatchUp}).
     */
    private void catchUp() {
        if (registry.published() == knownMeta) {
            return;
        }
        long durableBefore = durableRevision();
        FreeSpace.Before before = space.before(latest().revision);
        sharedFile.resync();
        space.reset();
        publisher.resetSlots();
        adopt();
        if (durableRevision() != durableBefore) {
            // A checkpoint of another process: it may have died before its sync.
            syncOrFail();
        }
        int n = collectHolders();
        space.pendAfterCatchUp(before, freedLog, freedSeen, held, n, latest().revision);
        announceHead();
    }

    /**
     * A writer opening beside readers (of other processes, or read-only stores of this one): slots
     * of dead processes are cleared, and if live ones hold older revisions, the free pages are not
     * known to be free of them (which revision freed each is not persisted), so all wait until
     * those readers are gone.
     */
    private void afterOpen() {
        registry.clearStale();
        long held = registry.newestBelow(latest().revision);
        if (held >= 0) {
            space.pendAllReusable(held);
        }
    }

    /** How long a reader waits for an announced meta to appear in its slot before reading the metas itself. */
    private static final long ANNOUNCEMENT_WAIT_NANOS = 1_000_000_000L;

    /** The meta recovery would open at, for a reader that has no usable announcement. */
    private MetaPage.Record recoveredMeta() {
        List<MetaPage.Record> metas = Recovery.readAll(pages, checksums);
        if (!metas.isEmpty()) {
            publisher.storeId(metas.get(0).storeId);
        }
        Recovery.Choice choice = Recovery.choose(pages, metas, access.uncached());
        dropped = choice.dropped();
        return choice.meta();
    }

    /**
     * A read-only store's view of the newest revision: the meta the writer announced last, read
     * again only when the announcement changes. Before any announcement (no writer since the
     * reader table was created) it is the meta recovery would open at.
     */
    private Revision follow() {
        if (remote != null) {
            return followRemote(false);
        }
        long waitingFor = 0;
        long giveUpAt = 0;
        while (true) {
            long meta = registry.published();
            Followed f = followed;
            if (f != null && f.meta == meta) {
                return f.revision;
            }
            MetaPage.Record m;
            if (meta == 0) {
                m = recoveredMeta();
            } else {
                int slot = (int) (meta & 3);
                m = slot < pages.pageCount() ? MetaPage.read(pages, checksums, slot) : null;
                if (m == null || m.sequence != meta >>> 2) {
                    // Normally overwritten by a newer meta since, whose announcement follows within
                    // microseconds. One that never comes true (the store file was replaced under the
                    // reader table, or the slot is damaged) gives way, after a second, to the metas
                    // as recovery reads them; remembered, so that later reads do not wait again.
                    if (meta != waitingFor) {
                        waitingFor = meta;
                        giveUpAt = System.nanoTime() + ANNOUNCEMENT_WAIT_NANOS;
                    }
                    if (System.nanoTime() - giveUpAt < 0) {
                        LockSupport.parkNanos(10_000);
                        continue;
                    }
                    m = recoveredMeta();
                } else {
                    publisher.storeId(m.storeId);
                }
            }
            if (m.pageCount > pages.pageCount()) {
                ((FilePageStore) pages).follow();
            }
            Revision r = followedRevision(m);
            followed = new Followed(meta, r);
            if (readOnly) {
                publisher.follow(r);
            }
            return r;
        }
    }

    /**
     * A remote reader's view of the newest revision: the newest meta its writer published, fetched
     * (only if it changed) and read by one thread at a time; {@code forSnapshot} marks the reader
     * as reading until the snapshot's registration.
     */
    private Revision followRemote(boolean forSnapshot) {
        synchronized (followLock) {
            remote.refreshMeta(forSnapshot);
            List<MetaPage.Record> metas = Recovery.readAll(pages, checksums);
            if (metas.isEmpty()) {
                throw new CorruptionException(-1, "no valid meta in " + pages.describe());
            }
            // Its writer sends a meta only after every page it reaches, so the newest is whole.
            MetaPage.Record m = metas.get(0);
            publisher.storeId(m.storeId);
            Followed f = followed;
            if (f != null && f.meta == m.sequence) {
                return f.revision;
            }
            Revision r = followedRevision(m);
            followed = new Followed(m.sequence, r);
            publisher.follow(r);
            return r;
        }
    }

    /** The revision a followed meta names, with room for the roots of the trees known so far. */
    private Revision followedRevision(MetaPage.Record m) {
        return revisionOf(m, Math.max(16, treeIds.get() + 16));
    }

    /** The revision a meta names, with {@code rootSlots} slots for cached roots. */
    private Revision revisionOf(MetaPage.Record m, int rootSlots) {
        return new Revision(m.revision, m.durableRevision, m.catalog.copy(), m.fresh, m.pageCount, m.commitMillis,
                m.freeRoot, m.freeRevision, m.freeHeight, new TreeRoot[rootSlots])
                .sealedThrough(bound(Recovery.sealedThrough(m)));
    }


    /**
     * The revision through which pages must carry a checksum, as this store can promise it (see
     * {@link PageAccess}). A store that never reuses page numbers (a remote one) keeps no bound:
     * its readers may hold copies of pages fetched before a checkpoint sealed them.
     */
    private long bound(long sealedThrough) {
        return pages.reusesPages() ? sealedThrough : -1;
    }

    private Revision latest() {
        return publisher.latest();
    }

    private long durableRevision() {
        return publisher.durableRevision();
    }

    /** A meta was announced: writers that take turns know it as theirs. */
    private void announced(long word, Revision r) {
        if (sharedFile != null) {
            knownMeta = word;
            followed = new Followed(word, r);
        }
    }

    // ------------------------------------------------------------------ trees

    /** The handle of the tree named {@code name} (whether or not it exists yet). */
    public Tree tree(String name) {
        Tree tree = trees.get(name);
        if (tree == null) {
            tree = trees.computeIfAbsent(name, n -> new Tree(n, treeIds.getAndIncrement(), this));
        }
        return tree;
    }

    /**
     * This store's handle for {@code tree}: the same one, or, for a handle of another Store object
     * (an earlier open of this file, say), the handle of the same name here. Handle ids index
     * per-store caches, so a foreign id must never reach them.
     */
    Tree own(Tree tree) {
        return tree.owner() == this ? tree : tree(tree.name());
    }

    int treeCount() {
        return treeIds.get();
    }

    Tree garbageTree() {
        return garbageTree;
    }

    /** The root of {@code tree} in revision {@code r}, or {@link Revision#ABSENT}; cached per revision. */
    TreeRoot rootOf(Revision r, Tree handle) {
        Tree tree = own(handle);
        int id = tree.id();
        TreeRoot[] roots = r.roots;
        if (id < roots.length) {
            TreeRoot cached = (TreeRoot) ROOTS.getAcquire(roots, id);
            if (cached != null) {
                return cached;
            }
        }
        TreeRoot found = r.fresh.lookup(tree.key());
        if (found == null) {
            found = Catalog.lookup(r.reader(access), r.catalog, tree.key());
        }
        TreeRoot root = found == null ? Revision.ABSENT : found;
        if (id < roots.length) {
            ROOTS.setRelease(roots, id, root);
        }
        return root;
    }

    // ------------------------------------------------------------------ reading

    /**
     * Opens a snapshot of the newest committed revision. Costs one compare-and-set on a free slot
     * of the reader registry; the writer never waits for it.
     */
    public Snapshot beginRead() {
        checkOpen();
        int slot = claim(ReaderRegistry.SNAPSHOT);
        try {
            return new Snapshot(this, hold(slot), slot);
        } catch (RuntimeException | Error e) {
            // As a close does: a reader elsewhere also takes the revision out of what it registers,
            // which its failed open had already put there.
            release(slot);
            throw e;
        }
    }

    /** Claims a registry slot, with a span of the page store for the pages looked up through it. */
    private int claim(long kind) {
        int slot = registry.claim(kind);
        slotSpans[slot] = pages.beginSpan();
        return slot;
    }

    private void releaseSlot(int slot) {
        long span = slotSpans[slot];
        registry.release(slot);
        pages.endSpan(span);
    }

    /** Publishes the newest revision in a registry slot, re-reading until no commit slipped between. */
    private Revision hold(int slot) {
        if (remote != null && readOnly) {
            return holdRemote(slot);
        }
        if (readOnly || sharedFile != null) {
            while (true) {
                long meta = registry.published();
                Revision r = follow();
                registry.hold(slot, r);
                if (registry.published() == meta) {
                    return r;
                }
            }
        }
        while (true) {
            Revision r = latest();
            registry.hold(slot, r);
            if (latest() == r) {
                return r;
            }
        }
    }

    /**
     * A remote reader's snapshot: the newest published revision, registered where the writer looks
     * (see {@link SharedPages}); read again if the reading mark lapsed before the registration.
     */
    private Revision holdRemote(int slot) {
        synchronized (followLock) {
            while (true) {
                Revision r = followRemote(true);
                registry.hold(slot, r);
                // A lapse found before (reading the meta, or a failed try) may have expired the slot
                // with the others; one found from here on fails the hold below, or comes after it.
                registry.unexpire(slot);
                if (tellRemoteHeld(true)) {
                    return r;
                }
            }
        }
    }

    /**
     * The registration of this reader's snapshots lapsed, so the writer elsewhere may have freed
     * the pages of {@code revisions}: their snapshots expire (their next read throws) instead of
     * meeting pages the writer freed.
     */
    private void expireLapsed(String where, long[] revisions) {
        int expired = registry.expireSnapshotsOf(revisions);
        if (expired > 0) {
            LOG.log(System.Logger.Level.WARNING, "the registration of the snapshots of " + where
                    + " lapsed (this reader stalled past its lease, or could not reach the store to renew it); "
                    + expired + " snapshot(s) of revisions " + java.util.Arrays.toString(revisions) + " expired");
        }
    }

    /**
     * Tells the revisions this process's snapshots hold to the writer elsewhere (see
     * {@link SharedPages#hold}); under {@link #followLock}.
     */
    private boolean tellRemoteHeld(boolean mustReach) {
        if (remoteHeld.length < registry.capacity()) {
            remoteHeld = new long[registry.capacity()];
        }
        return remote.hold(remoteHeld, registry.collect(remoteHeld), mustReach);
    }

    void release(int slot) {
        if (closed) {
            // The close released every slot; this one may belong to a store opened on the file since.
            return;
        }
        if (remote != null && readOnly) {
            // Under the lock of snapshot opens: a list collected before an open and told after it would drop its revision.
            synchronized (followLock) {
                releaseSlot(slot);
                tellRemoteHeld(false);
            }
            return;
        }
        releaseSlot(slot);
    }

    boolean expired(int slot) {
        return registry.expired(slot);
    }

    /**
     * Every holder of a revision now: open snapshots and running checkpoints, with the revision each
     * holds, how many commits behind the newest it is, its age and the thread that opened it.
     */
    public List<ReaderInfo> readers() {
        checkOpen();
        return registry.readers(revision());
    }

    /**
     * Writes a compact copy of the newest revision to a new store file at {@code target} (which must
     * not exist), from a snapshot while the writer goes on: a hot backup. Every tree is rebuilt
     * with full pages, so the copy holds no free space; {@code options} choose its page size, which
     * may differ from this store's. The target appears only once the copy is complete and synced.
     */
    public void copyTo(Path target, StoreOptions options) {
        copyTo(target, options, copied -> { });
    }

    /** As {@link #copyTo(Path, StoreOptions)}, telling {@code entriesCopied} how far it got now and then. */
    public void copyTo(Path target, StoreOptions options, java.util.function.LongConsumer entriesCopied) {
        try (Snapshot snapshot = beginRead()) {
            StoreCopy.copy(snapshot, target, options, entriesCopied);
        }
    }

    /** Newest committed revision (for a read-only store: announced by the writer). */
    public long revision() {
        return readOnly || sharedFile != null ? follow().revision : latest().revision;
    }

    /** Whether the store was opened with {@link #openReadOnly}. */
    public boolean isReadOnly() {
        return readOnly;
    }

    /**
     * Frees the reader slots of processes that died holding snapshots (the writer also does this
     * by itself, at open and about once a second); returns how many.
     */
    public int clearStaleReaders() {
        checkOpen();
        return registry.clearStale();
    }

    // ------------------------------------------------------------------ writing

    /** Begins the write transaction, waiting up to {@link StoreOptions#writeTimeout()} for the running one. */
    public WriteTxn beginWrite() {
        return beginWrite(options.writeTimeout());
    }

    /** Begins the write transaction, waiting up to {@code timeout} for the running one. */
    public WriteTxn beginWrite(Duration timeout) {
        checkWritable();
        // The clock is read only when there is a wait: it costs a few percent of a one-key commit.
        long waitedSince = 0;
        try {
            if (!writer.tryAcquire()) {
                writerWaits.incrementAndGet();
                waitedSince = System.nanoTime();
                if (!writer.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                    throw new WriteTimeoutException("another write transaction is still open after " + timeout
                            + " (one writer at a time)");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WriteTimeoutException("interrupted while waiting for the write transaction");
        }
        try {
            if (sharedFile != null) {
                long waited = waitedSince == 0 ? 0 : System.nanoTime() - waitedSince;
                startTurn(timeout.toNanos() - waited, "beginWrite", timeout);
            }
        } catch (RuntimeException | Error e) {
            writer.release();
            throw e;
        }
        try {
            checkWritable();
            boolean checkpointed = adoptCheckpoint();
            clearStaleReadersNowAndThen();
            int n = collectHolders();
            space.releasePending(held, n);
            if (checkpointed) {
                prefaultUpcoming();
            }
            if (sweepReady) {
                sweepStep();
            }
            checkSlowReaders();
            return new WriteTxn(this, latest(), txnPages, editor, txnScratch);
        } catch (RuntimeException | Error e) {
            endTurn();
            writer.release();
            throw e;
        }
    }

    /**
     * Writers that take turns: waits up to {@code nanos} for another process's transaction to end,
     * takes the writer lock and catches up with what other processes committed. Holding
     * {@link #writer}.
     */
    private void startTurn(long nanos, String what, Duration timeout) {
        if (sharedFile == null) {
            return;
        }
        if (!sharedFile.takeTurn(0)) {
            writerWaits.incrementAndGet();
            if (!sharedFile.takeTurn(Math.max(0, nanos))) {
                long pid = sharedFile.lockFile().writerPid();
                throw new WriteTimeoutException(what + " waited " + timeout + " for the write transaction of another"
                        + " process" + (pid > 0 ? " (pid " + pid + ")" : ""));
            }
        }
        catchUpOrLeave();
    }

    /**
     * {@link #catchUp}, or on failure leaves the turn without taking the freed-page log as read,
     * so that the next turn reads it again.
     */
    private void catchUpOrLeave() {
        try {
            catchUp();
        } catch (RuntimeException | Error e) {
            sharedFile.endTurn();
            throw e;
        }
    }

    /** Ends the turn of {@link #startTurn}; what this process freed in it is accounted for. */
    private void endTurn() {
        if (sharedFile != null) {
            freedSeen = freedLog.sequence();
            sharedFile.endTurn();
        }
    }

    /** About once a second, frees the slots of reader processes that died (the clock is read every 64 calls). */
    private void clearStaleReadersNowAndThen() {
        if ((++sinceStaleClock & 63) != 0) {
            return;
        }
        long t = System.nanoTime();
        if (t - lastStaleScan >= 1_000_000_000L) {
            lastStaleScan = t;
            registry.clearStale();
        }
    }

    /**
     * Applies the slow-reader policy: at every write transaction if the oldest revision held lags
     * too far, and by age at most once a second (reading the clock costs more than the lag test).
     */
    private void checkSlowReaders() {
        SlowReaderPolicy policy = options.slowReaders();
        if (!policy.enabled() || oldestReaderRevision < 0) {
            return;
        }
        long latestRevision = latest().revision;
        boolean scan = policy.maxLag() > 0 && latestRevision - oldestReaderRevision > policy.maxLag();
        if (!scan && !policy.maxAge().isZero()) {
            long now = System.nanoTime();
            scan = now - lastSlowReaderScan >= 1_000_000_000L;
            if (scan) {
                lastSlowReaderScan = now;
            }
        }
        if (scan) {
            registry.reportSlow(policy, latestRevision);
        }
    }

    /** Learns of checkpoints since the last call (holding the writer); returns whether there were any. */
    private boolean adoptCheckpoint() {
        long done = checkpoints;
        if (done == checkpointsSeen) {
            return false;
        }
        checkpointsSeen = done;
        space.checkpointed();
        return true;
    }

    /**
     * Has the prefaulter touch the pages the writer will allocate next, as many as it allocated in
     * the last checkpoint window, up to what makes a checkpoint anyway, keeping just ahead of the
     * writer (holding the writer, after the pages the checkpoint let go are reusable).
     */
    private void prefaultUpcoming() {
        if (prefaulter == null) {
            return;
        }
        long limit = Math.min(1 << 20, options.checkpointBytes() / pages.pageSize());
        int count = (int) Math.min(limit, space.lastWindowPages());
        long[] upcoming = new long[count];
        // Even empty: the writer's count of pages taken starts again, so the old job must go.
        prefaulter.touchAhead(upcoming, count > 0 ? space.upcoming(upcoming) : 0);
    }

    /** Revisions that pin pages: open snapshots and checkpoints, and the durable revision. */
    private int collectHolders() {
        if (held.length < registry.capacity() + 1) {
            held = new long[registry.capacity() * 2 + 1];
        }
        int n = registry.collect(held);
        oldestReaderRevision = n > 0 ? held[0] : -1;
        if (pages.durable()) {
            n = addHeld(durableRevision(), n);
        }
        if (remote != null && !readOnly) {
            n = addRemoteHolders(n);
        }
        return n;
    }

    /**
     * The durable revision is about to move on from {@code previous}, which readers on other hosts
     * may have read: it is held until they have surely registered it (see {@link #addRemoteHolders}).
     */
    private void replaced(long previous) {
        if (remote != null && !readOnly) {
            synchronized (replaced) {
                replaced.addLong(previous);
                replaced.addLong(System.nanoTime());
            }
        }
    }

    /** Adds a revision to the first {@code n} of {@link #held}, keeping them ascending and distinct. */
    private int addHeld(long revision, int n) {
        int at = java.util.Arrays.binarySearch(held, 0, n, revision);
        if (at >= 0) {
            return n;
        }
        at = -at - 1;
        if (n == held.length) {
            held = java.util.Arrays.copyOf(held, n * 2);
        }
        System.arraycopy(held, at, held, at + 1, n - at);
        held[at] = revision;
        return n + 1;
    }

    /**
     * Revisions readers on other hosts may hold: the ones they registered, and each revision
     * published and since replaced until a look that began after the replacement found no reader
     * between reading a meta and registering it (see {@link SharedPages}).
     */
    private int addRemoteHolders(int n) {
        // At close, a fresh look lets go of everything it can; else one look per period at most.
        SharedPages.Held look = remote.heldElsewhere(closing ? 0 : REMOTE_LOOK_NANOS);
        synchronized (replaced) {
            int kept = 0;
            for (int i = 0; i < replaced.size(); i += 2) {
                long revision = replaced.getLong(i);
                long at = replaced.getLong(i + 1);
                if (look.someoneReading() || look.lookedAtNanos() - at <= 0) {
                    replaced.setLong(kept++, revision);
                    replaced.setLong(kept++, at);
                    n = addHeld(revision, n);
                }
            }
            while (replaced.size() > kept) {
                replaced.removeAt(replaced.size() - 1);
            }
        }
        for (long revision : look.revisions()) {
            n = addHeld(revision, n);
        }
        if (look.lookedAtNanos() - openedNanos > 0) {
            space.holdersKnown(true);
        }
        // Pages free when this writer opened may be swept once no reader elsewhere can reach them:
        // none registered below that revision, and none between a meta and its registration, in a
        // look begun after the open.
        if (sweepBelow >= 0 && look.lookedAtNanos() - openedNanos > 0 && !look.someoneReading()
                && (look.revisions().length == 0 || look.revisions()[0] >= sweepBelow)) {
            sweepReady = true;
        }
        return n;
    }

    /**
     * One step of the sweep of pages earlier writers left in shared storage: those no revision
     * reaches (gone from the free space of this writer, which began with every page not in use).
     * Returns false if the step failed.
     */
    private boolean sweepStep() {
        if (damage != null) {
            // The pages to delete are those the loaded free map calls discarded, which damage may include.
            return false;
        }
        try {
            if (remote.sweep(space.discarded::get)) {
                sweepBelow = -1;
                sweepReady = false;
            }
            return true;
        } catch (StorageException e) {
            // Only cleaning: the sweep starts again at a later step.
            return false;
        }
    }

    void commit(WriteTxn txn, TreeRoot catalog, FreshRoots fresh, TreeRoot[] roots, Durability durability) {
        checkWritable();
        long revision = txn.revision();
        txnPages.writePrivate();
        if (freeMapFlushDue()) {
            // Reserve first: once the flush starts, nothing may fail before the meta is written.
            space.reserve(freeMap.flushBound(space));
            space.flushing();
            freeMap.flush(txnPages, space);
            commitsSinceFlush = 0;
        }
        space.reportWritten();
        if (durability == Durability.SYNC && pages.durable()) {
            if (pages.reusesPages()) {
                commitSync(revision, catalog, fresh, roots);
            } else {
                // Not beside a checkpoint's first pass, which seals and copies pages to send outside
                // the meta lock: a page copied while sealed would arrive torn.
                synchronized (checkpointLock) {
                    commitSync(revision, catalog, fresh, roots);
                }
            }
        } else if (!pages.durable()) {
            publisher.publishUnwritten(revisionOf(revision, durableRevision(), catalog, fresh, roots));
        } else {
            publisher.lock();
            try {
                // The durable revision is read under the lock, where a checkpoint moves it.
                publisher.publish(revisionOf(revision, durableRevision(), catalog, fresh, roots),
                        space.flips);
            } finally {
                publisher.unlock();
            }
        }
        long written = space.takePagesWritten();
        if (checkpointer != null && durability == Durability.NORMAL) {
            checkpointer.written(written * pages.pageSize());
        }
        int n = collectHolders();
        space.published(revision, held, n);
    }

    /**
     * Whether this commit writes the flips into the free map. Every meta lists them, so each commit
     * pays for those it carries: flush when they outgrow the meta, and also when they pass a
     * quarter of that {@value #FLIP_SETTLE_COMMITS} or more commits after the last flush. A set of
     * flips that stops growing just short of the meta's capacity (pages a tree grew by, then kept)
     * would otherwise be written by every commit, a fifth of a one-key commit's cost.
     */
    private boolean freeMapFlushDue() {
        int flips = space.flips.size();
        int capacity = MetaPage.flipCapacity(pages.pageSize());
        commitsSinceFlush++;
        return flips > capacity || flips > capacity / 4 && commitsSinceFlush >= FLIP_SETTLE_COMMITS;
    }

    private Revision revisionOf(long revision, long durable, TreeRoot catalog, FreshRoots fresh, TreeRoot[] roots) {
        return new Revision(revision, durable, catalog.copy(), fresh, pages.pageCount(), System.currentTimeMillis(),
                freeMap.root, freeMap.rootRevision, freeMap.height, roots).sealedThrough(bound(durable));
    }

    /**
     * A SYNC commit: seals the pages written since the durable revision, writes a sealed meta and
     * syncs. The durable revision is read under the meta lock: a checkpoint that finished while this
     * commit waited has moved it, and the revision it replaced is the one to hold for readers elsewhere.
     */
    private void commitSync(long revision, TreeRoot catalog, FreshRoots fresh, TreeRoot[] roots) {
        publisher.lock();
        try {
            long durableBefore = durableRevision();
            // Sealed whole before it is published: readers require seals through its own revision.
            Revision r = revisionOf(revision, durableBefore, catalog, fresh, roots).sealedThrough(bound(revision));
            RevisionWalker.seal(sealer, r, durableBefore);
            publisher.publishSynced(r, space.flips, this::syncOrFail);
            replaced(durableBefore);
        } finally {
            publisher.unlock();
        }
    }

    void endWrite(WriteTxn txn, boolean abort) {
        if (abort) {
            space.abort();
            Revision base = latest();
            freeMap.set(base.freeMapRoot, base.freeMapRevision, base.freeMapHeight);
        }
        endTurn();
        writer.release();
    }

    private void syncOrFail() {
        syncOrFail(pages::sync);
    }

    /** Runs a sync; if it fails, the store refuses further writes (a failed fsync is never retried as if it worked). */
    private void syncOrFail(Runnable sync) {
        try {
            sync.run();
        } catch (StorageException e) {
            failed(e);
            // An interrupt that closed the channel is no disk failure, and is not reported as one.
            throw new StoreFailedException((channelClosed(e) ? "" : "fsync failed; ")
                    + "the store refuses further writes until it is reopened: " + e.getMessage(), e);
        }
    }

    private static boolean channelClosed(StorageException e) {
        return e.getCause() instanceof ClosedChannelException;
    }

    /**
     * A write (or a growth of the file) that found the file's channel closed: an interrupt of a
     * thread doing file I/O closes it for good, so no later write could succeed either, and the
     * store refuses writes until it is reopened. Any other failure (a full disk) leaves it
     * writable: the transaction aborts.
     */
    RuntimeException writeFailed(StorageException e) {
        if (!channelClosed(e)) {
            return e;
        }
        failed(e);
        return new StoreFailedException("the store refuses further writes until it is reopened: " + e.getMessage(), e);
    }

    void failed(Throwable t) {
        if (failure == null) {
            failure = t;
        }
    }

    // ------------------------------------------------------------------ durability

    /**
     * Makes every commit so far durable (a checkpoint), and returns the free tail of the file (not
     * once {@link #check} found the store damaged).
     */
    public void sync() {
        checkUnfailed();
        if (!pages.durable()) {
            return;
        }
        if (sharedFile == null) {
            checkpoint();
            // The background checkpoint this one waited for may have failed: then nothing is durable.
            checkUnfailed();
            shrink(false);
            dropZerosAhead();
            return;
        }
        acquireWriter("sync");
        try {
            startTurn(options.writeTimeout().toNanos(), "sync", options.writeTimeout());
            checkpointInTurn();
        } finally {
            writer.release();
        }
        checkUnfailed();
    }

    /**
     * The checkpointer's round. Writers that take turns checkpoint in a turn, skipping the round
     * if this process is writing or another process does not end its turn soon; they checkpoint
     * every process's commits.
     */
    void backgroundCheckpoint() {
        if (sharedFile == null) {
            checkpoint();
            shrink(false);
            return;
        }
        if (latest().revision == durableRevision() && registry.published() == knownMeta || !writer.tryAcquire()) {
            return;
        }
        try {
            if (!sharedFile.takeTurn(TimeUnit.MILLISECONDS.toNanos(100))) {
                return;
            }
            catchUpOrLeave();
            checkpointInTurn();
        } finally {
            writer.release();
        }
    }

    /** Checkpoints and gives back a large free tail, then ends the turn (writers that take turns). */
    private void checkpointInTurn() {
        try {
            checkpoint();
            shrinkHoldingWriter(false);
        } finally {
            endTurn();
        }
    }

    /** Waits up to the write timeout for this process's write transaction to end, and takes the writer. */
    private void acquireWriter(String what) {
        try {
            if (!writer.tryAcquire(options.writeTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
                throw new WriteTimeoutException(what + " waited " + options.writeTimeout()
                        + " for the write transaction");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WriteTimeoutException("interrupted while waiting for the write transaction");
        }
    }

    /** Checkpoints if any commit is not durable yet. */
    void checkpoint() {
        if (latest().revision != durableRevision()) {
            checkpoint(sealer);
        }
    }

    /**
     * On close: a checkpoint, and a steady copy of the newest meta if it is not steady yet (a SYNC
     * commit's meta names the durable revision before it), so that the next open trusts the
     * file as it is and walks nothing.
     */
    private void checkpointSteady() {
        if (latest().revision != durableRevision() || !publisher.headIsSteady()) {
            checkpoint(sealer);
        }
    }

    /**
     * Seals (checksums) and syncs every page written since the durable revision, then writes a
     * steady copy of the newest meta and syncs it. The first pass runs beside the writer; a
     * second, short pass under the meta lock covers the commits made meanwhile.
     */
    private void checkpoint(PageAccess sealer) {
        synchronized (checkpointLock) {
            if (failure != null) {
                // After a failed fsync another may report success for pages that never reached the
                // disk: nothing may be called durable any more.
                return;
            }
            int slot = claim(ReaderRegistry.CHECKPOINT);
            try {
                Revision c = hold(slot);
                long since = durableRevision();
                if (c.revision == since && publisher.headIsSteady()) {
                    return;
                }
                boolean file = pages.reusesPages();
                // The bulk of the writeback runs outside the meta lock, so that commits go on: c's
                // pages are sealed and synced (a file) or sent without a meta (a remote store, whose
                // SYNC commits wait for the checkpoint lock, so that none seals a page being copied).
                RevisionWalker.seal(sealer, c, since);
                syncOrFail(file ? pages::sync : () -> pages.preparePages().run());
                long sealed = c.revision;
                if (!file && latest().revision != sealed) {
                    // Sending took long: a second pass takes the commits made meanwhile, so that the
                    // pass under the meta lock, which commits wait for, copies few pages.
                    Revision c2 = hold(slot);
                    RevisionWalker.seal(sealer, c2, sealed);
                    syncOrFail(() -> pages.preparePages().run());
                    sealed = c2.revision;
                }
                int pending;
                Revision h;
                Runnable send;
                publisher.lock();
                try {
                    h = latest();
                    // From here h is what becomes durable: its pages must not be reused (or deleted)
                    // by commits between this lock and the last sync, though it is not durable yet.
                    registry.hold(slot, h);
                    if (h.revision != sealed) {
                        RevisionWalker.seal(sealer, h, sealed);
                        if (file) {
                            syncOrFail();
                        }
                    }
                    pending = publisher.publishSteadyCopy(h);
                    // Synced after the lock. A store that sends pages elsewhere sends them and then
                    // the steady meta in order, in one send; it copies them here, as no commit can
                    // seal a page it copies (a page sent while being sealed would arrive torn).
                    send = pages.prepareSync();
                } finally {
                    publisher.unlock();
                }
                syncOrFail(send);
                publisher.lock();
                try {
                    // Unless a SYNC commit made a newer revision durable while the meta was synced.
                    long before = publisher.steadyCopySynced(pending, h);
                    if (before >= 0) {
                        replaced(before);
                        checkpoints++;
                    }
                } finally {
                    publisher.unlock();
                }
            } finally {
                releaseSlot(slot);
            }
        }
    }

    /**
     * A store that deletes freed pages, on close: lets go of the freed pages no reader holds any
     * more and has them deleted, so that a clean close leaves no page behind that nothing reaches.
     */
    private void deleteUnreachable() {
        closing = true;
        int n = collectHolders();
        space.releasePending(held, n);
        while (sweepReady && sweepStep()) {
            // A clean close finishes the sweep, unless Redis fails it.
        }
        syncOrFail();
    }

    /**
     * Gives back the zeros written ahead of the next growth ({@link Prefaulter}): after a sync the
     * file holds what the store uses. Needs the writer, which may grow the store meanwhile.
     */
    private void dropZerosAhead() {
        if (!writer.tryAcquire()) {
            return;
        }
        try {
            if (failure == null) {
                pages.truncate(pages.pageCount());
            }
        } finally {
            writer.release();
        }
    }

    /**
     * Gives the free tail of the file back to the file system: always on close, otherwise when it
     * is at least an eighth of the file and 1 MiB. Needs the writer; skipped if a transaction runs.
     */
    void shrink(boolean always) {
        if (!writer.tryAcquire()) {
            return;
        }
        try {
            shrinkHoldingWriter(always);
            if (failure == null && adoptCheckpoint()) {
                // The writer is idle: its next pages are prefaulted now, not at its next transaction.
                int n = collectHolders();
                space.releasePending(held, n);
                prefaultUpcoming();
            }
        } finally {
            writer.release();
        }
    }

    private void shrinkHoldingWriter(boolean always) {
        if (!pages.reusesPages()) {
            // Page numbers past the end may have been written once; they are never handed out again.
            return;
        }
        long count = pages.pageCount();
        long tail = pages.roundUpToGrowthUnit(space.reusableTailStart());
        long freeTail = count - tail;
        if (freeTail <= 0 || failure != null || damage != null
                || !always && (freeTail < count / 8 || freeTail * pages.pageSize() < (1L << 20))) {
            return;
        }
        space.shrinkTo(tail);
        Revision base = latest();
        Revision r = new Revision(base.revision + 1, durableRevision(), base.catalog, base.fresh, tail,
                System.currentTimeMillis(), base.freeMapRoot, base.freeMapRevision, base.freeMapHeight, base.roots)
                .sealedThrough(bound(durableRevision()));
        publisher.lock();
        try {
            publisher.publish(r, space.flips);
        } finally {
            publisher.unlock();
        }
        checkpoint(sealer);
        pages.truncate(tail);
    }

    // ------------------------------------------------------------------ state

    void checkOpen() {
        if (closed) {
            throw new ClosedException("store " + describe() + " is closed");
        }
    }

    private void checkWritable() {
        checkUnfailed();
        String d = damage;
        if (d != null) {
            throw new StoreFailedException("check() found store " + describe() + " damaged (" + d + "); it refuses "
                    + "writes until reopened, so that none lands on a page the damage calls free (copyTo saves "
                    + "what can be read)");
        }
    }

    /** Open for writing, and no write or fsync failed (a store found damaged may still checkpoint). */
    private void checkUnfailed() {
        checkOpen();
        if (readOnly) {
            throw new ReadOnlyStoreException("store " + describe() + " is open read-only");
        }
        Throwable f = failure;
        if (f != null) {
            throw new StoreFailedException("store " + describe() + " failed earlier and refuses writes until reopened: "
                    + f.getMessage(), f);
        }
    }

    boolean isClosed() {
        return closed;
    }

    String describe() {
        return pages.describe();
    }

    PageAccess access() {
        return access;
    }

    TreeLimits limits() {
        return limits;
    }

    /** The options the store was opened with. */
    public StoreOptions options() {
        return options;
    }

    /** Page size of the store. */
    public int pageSize() {
        return pages.pageSize();
    }

    /** Longest key the store accepts: a quarter of a page. */
    public int maxKeySize() {
        return limits.maxKeySize;
    }

    /**
     * The revisions newer than the one this store opened at that recovery did not open at because
     * their pages did not verify (a commit cut short by a power cut, or damage), each with the
     * reason; empty when it opened at the newest revision the file holds. Recovery also logs them
     * (logger {@code io.mvbt.recovery}). They are wiped from the file when the store opens for
     * writing.
     */
    public List<String> droppedRevisions() {
        return dropped;
    }

    /** A consistent picture of the store's revisions, snapshots and pages. */
    public StoreStats stats() {
        checkOpen();
        long[] readers = registry.summary();
        long age = readers[2] < 0 ? -1 : Math.max(0, System.currentTimeMillis() - readers[2]);
        return new StoreStats(latest().revision, durableRevision(), readers[0], readers[1], age, pages.pageSize(),
                pages.pageCount(), space.inUse.cardinality(), space.reusable.cardinality(), space.pending.pages(),
                space.lastCommitPages(), writerWaits.get(), publisher.lockWaits(), checkpoints,
                prefaulter == null ? 0 : prefaulter.touched());
    }

    /**
     * Checks the whole store (see {@link IntegrityChecker}); waits for the running write
     * transaction to end. A store open for writing that is found damaged refuses writes from then on
     * ({@link StoreFailedException}), keeps its file's size and deletes no page of shared storage;
     * {@link #sync} and {@link #close} still make its commits durable.
     */
    public CheckReport check() {
        checkOpen();
        if (readOnly) {
            // The free space is the writer's to know: check what a snapshot reaches.
            try (Snapshot s = beginRead()) {
                return new IntegrityChecker(this, s.rev().reader(access).uncached()).checkTrees(s.rev(),
                        s.rev().durableRevision);
            }
        }
        acquireWriter("check");
        try {
            startTurn(options.writeTimeout().toNanos(), "check", options.writeTimeout());
            try {
                CheckReport report = new IntegrityChecker(this, latest().reader(access).uncached().withTrustUnsealed())
                        .check(latest(), durableRevision());
                if (!report.ok() && damage == null) {
                    damage = report.problems().get(0);
                }
                return report;
            } finally {
                endTurn();
            }
        } finally {
            writer.release();
        }
    }

    FreeSpace space() {
        return space;
    }

    ReaderRegistry registry() {
        return registry;
    }

    PageStore pages() {
        return pages;
    }

    /** Flips persisted in the meta of the newest revision (for the checker). */
    FlipSet flips() {
        return space.flips;
    }

    /**
     * Closes the store: waits for the write transaction to end, makes every commit durable, gives
     * the free tail of the file back, and releases the file. Snapshots still open fail on next use.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        // File I/O on an interrupted thread closes the channel for good, and a close must finish:
        // the interrupt is set aside until it has, and restored then.
        boolean interrupted = Thread.interrupted();
        try {
            awaitWriterForClose();
            closeHoldingWriter();
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits up to the write timeout for the write transaction to end; interrupts do not cut it short. */
    private void awaitWriterForClose() {
        long deadline = System.nanoTime() + options.writeTimeout().toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (writer.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        return;
                    }
                    throw new WriteTimeoutException("close waited " + options.writeTimeout()
                            + " for the write transaction to end");
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void closeHoldingWriter() {
        try {
            if (checkpointer != null) {
                checkpointer.stop();
            }
            if (prefaulter != null) {
                prefaulter.stop();
            }
            // Writers that take turns checkpoint only in a turn; if another process holds it past the
            // write timeout, this one's commits stay as durable as their mode made them.
            if (pages.durable() && failure == null && !readOnly
                    && (sharedFile == null || sharedFile.takeTurn(options.writeTimeout().toNanos()))) {
                try {
                    if (sharedFile != null) {
                        catchUp();
                    }
                    checkpointSteady();
                    if (!pages.reusesPages()) {
                        deleteUnreachable();
                    }
                    shrinkHoldingWriter(true);
                } finally {
                    endTurn();
                }
            }
        } finally {
            closed = true;
            // Snapshots left open stop holding their revisions here: the reader table outlives this
            // store object, and a later close of theirs must not clear a slot another took since.
            registry.releaseAll();
            pages.close();
            writer.release();
        }
    }
}
