// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

import io.mvbt.ClosedException;
import io.mvbt.ReadOnlyStoreException;
import io.mvbt.StoreFailedException;
import io.mvbt.WriteTimeoutException;
import io.mvbt.btree.TreeEditor;
import io.mvbt.btree.TreeLimits;
import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.pagestore.local.MemoryPageStore;
import io.mvbt.pagestore.local.NativeAccess;
import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.RemotePageStore;
import io.mvbt.pagestore.SharedPages;

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
 * {@link io.mvbt.StoreLockedException}.
 */
public final class Store implements AutoCloseable {
    private static final VarHandle ROOTS = MethodHandles.arrayElementVarHandle(TreeRoot[].class);

    private final PageStore pages;
    private final Writeback writeback;
    private final StoreOptions options;
    private final TreeLimits limits;
    private final Checksums checksums;
    private final PageAccess access;
    private final TreeEditor editor;
    private final WriteTxn.Scratch txnScratch = new WriteTxn.Scratch();
    private final ReaderRegistry registry;
    private final ReaderSlots slots;
    private final Health health = new Health();
    /** Owns the meta slots, the newest and the durable revision: every meta is written there. */
    private final Publisher publisher;
    private final Adoption adoption;
    private final Holders holders;
    /** Who else reads or writes the pages: the deployment mode. */
    private final Peers peers;
    private final Checkpoints checkpoints;
    private final Committer committer;
    /** How the writer's pages reach storage. */
    private final PagePath path;
    /** Times beginWrite found another write transaction open and had to wait. */
    private final AtomicLong writerWaits = new AtomicLong();
    /** The one permit to write, which gives the writer's free space, free map and transaction pages. */
    private final WriterPermit writer;
    /** The turn of the open write transaction (writers that take turns), else {@link Peers#NO_TURN}. */
    private Peers.Turn turn = Peers.NO_TURN;
    /** The snapshots open in this process, by reader slot: a close closes them before it releases the slots. */
    private final AtomicReferenceArray<Snapshot> snapshots;
    /** The write transaction begun and not yet ended, which a close aborts; else null. */
    private volatile WriteTxn openWrite;
    private final ConcurrentHashMap<String, Tree> trees = new ConcurrentHashMap<>();
    private final AtomicInteger treeIds = new AtomicInteger();
    /** The internal tree listing detached subtrees not yet freed. */
    private final Tree garbageTree = new Tree(Garbage.NAME, treeIds.getAndIncrement(), this, true);
    /** The internal tree of the revisions kept under names. */
    private final Tree namedTree = new Tree(NamedRevisions.NAME, treeIds.getAndIncrement(), this, true);
    /** The named revisions the writer holds. */
    private final NamedRevisions named = new NamedRevisions();
    private volatile boolean closed;
    /** Pages only, or commits recorded in a redo log ({@link StoreOptions#redoLog}). */
    private final DurabilityPolicy policy = new DurabilityPolicy(health);
    /** Where a sole writer's redo log lies (whether or not it records), or null. */
    private final RedoStorage redoStorage;
    /** What the check of the redo log before recovery found to replay. */
    private RedoReplay.Plan logPlan = RedoReplay.Plan.NOTHING;
    /** The damage to the redo log an open accepted ({@link StoreOptions#replayUntilLogDamage}), or null. */
    private volatile String logDamage;
    private final StoreMetrics metrics = new StoreMetrics(this);
    private long lastSlowReaderScan = System.nanoTime() - 1_000_000_000L;
    private long lastStaleScan = System.nanoTime();
    /** Write transactions since the clock was last read for the stale-reader scan (writer thread only). */
    private int sinceStaleClock;

    private Store(PageStore pages, StoreOptions options, boolean create, Deployment deployment) {
        this.pages = pages;
        this.options = options;
        this.registry = deployment.registry();
        this.redoStorage = deployment.redo();
        this.writeback = deployment.writeback();
        boolean othersWrite = deployment.othersWrite();
        this.limits = new TreeLimits(pages.pageSize());
        VerifiedPages verified = pages.durable() ? new VerifiedPages() : null;
        this.checksums = new Checksums(pages);
        this.access = new PageAccess(pages, writeback, checksums, limits, verified, TxnPages.maxRunPages(pages),
                othersWrite);
        FreeSpace space = new FreeSpace(pages, writeback);
        FilePageStore shadowed = options.shadowDirectory() != null ? deployment.shadowed() : null;
        Shadows shadows = shadowed != null ? new Shadows(options.shadowDirectory(), shadowed) : null;
        DirtyPages dirty = shadowed != null && !shadowed.readOnly() ? new DirtyPages(shadowed) : null;
        this.publisher = new Publisher(pages, writeback, checksums, registry);
        this.path = pagePath(options, deployment, shadows, dirty);
        TxnPages txnPages = new TxnPages(pages, access, space, verified, path, health::writeFailed);
        this.editor = new TreeEditor(limits);
        this.writer = new WriterPermit(pages, new WriterState(space, new FreeMap(pages.pageSize()), txnPages));
        this.slots = new ReaderSlots(registry, pages);
        this.snapshots = new AtomicReferenceArray<>(registry.capacity());
        this.adoption = new Adoption(pages, writeback, checksums, access, publisher, health, shadows, dirty, named);
        this.holders = new Holders(registry, publisher, pages.durable(), named);
        this.peers = deployment.peers(new Deployment.Parts(pages, options, registry, slots, checksums, publisher,
                adoption, health, holders, writer, writerWaits, treeIds::get));
        this.checkpoints = new Checkpoints(pages, path, options, publisher, registry, slots, peers, holders,
                health, adoption, writer, access.withTrustUnsealed(), policy);
        this.committer = new Committer(pages, checkpoints, publisher, holders, peers, health, adoption, path, policy);
        // The open holds the writer: it loads the writer's state.
        WriterState w = writer.tryAcquire();
        try {
            peers.open(() -> {
                if (create) {
                    create(w);
                } else {
                    recover(w);
                }
                afterOpen(w);
                path.opened();
            });
            peers.opened(w, create);
            long session = peers.sessionRevision(latest().revision);
            if (session >= 0) {
                checkpoints.publishUnchanged(w, session);
            }
            checkpoints.start(w);
        } finally {
            writer.release();
        }
    }

    /**
     * The path the writer's pages take: sent to a remote store; else through the mapping, built in
     * private memory where every commit syncs (each leaves its pages clean), and held in a shadow
     * before either where the options name a shadow directory.
     */
    private PagePath pagePath(StoreOptions options, Deployment deployment, Shadows shadows, DirtyPages dirty) {
        if (writeback instanceof Writeback.Sent sent) {
            return new SentPath(sent, publisher, registry, health);
        }
        boolean syncs = options.durability() == Durability.SYNC && pages.durable() && !options.redoLog();
        MappedPath base = syncs
                ? new PrivatePath(pages, publisher, registry, health, deployment.prefaulter(),
                        new PrivatePages(pages, checksums))
                : new MappedPath(pages, publisher, registry, health, deployment.prefaulter());
        return dirty == null ? base : new ShadowPath(base, dirty, shadows, publisher, health, options.checkpointBytes());
    }

    /** Opens (or creates) a store file with default options. */
    public static Store open(Path path) {
        return open(path, StoreOptions.defaults());
    }

    /** Opens (or creates) a store file for reading and writing. */
    public static Store open(Path path, StoreOptions options) {
        NativeAccess.require();
        requireDirectoryOf(path);
        boolean shared = options.sharedWriters();
        if (shared && options.redoLog()) {
            throw new IllegalArgumentException("a redo log is kept by a sole writer: sharedWriters and redoLog exclude "
                    + "each other");
        }
        if (shared && RedoFiles.present(path)) {
            throw new IllegalStateException("store " + path + " has a redo log: open it once without sharedWriters, "
                    + "which replays and removes it");
        }
        if (!java.nio.file.Files.exists(path) && RedoFiles.present(path)) {
            throw refusedBesideLog(path.toString());
        }
        FilePageStore.PageSizeReader existing = (channel, size) -> MetaPage.detectPageSize(path, channel, size);
        FilePageStore file = shared
                ? FilePageStore.openShared(path, options.pageSize(), existing, options.maxReaders(),
                        options.writeTimeout().toNanos())
                : FilePageStore.open(path, options.pageSize(), existing, options.maxReaders());
        try {
            if (!file.created()) {
                refuseOtherPageSize(path, file.pageSize(), options);
            }
            ReaderRegistry registry = ReaderRegistry.shared(file.lockFile());
            Deployment deployment = shared
                    ? new Deployment.SharedFile(file, registry)
                    : new Deployment.SoleFile(file, registry, options.prefault() ? new Prefaulter(file, file.describe())
                            : null, new RedoFiles(path));
            Store store = new Store(file, options, file.created(), deployment);
            return shared ? store : store.withRedoLog(file.created());
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
        FilePageStore file = FilePageStore.openReadOnly(path,
                (channel, size) -> MetaPage.detectPageSize(path, channel, size), options.maxReaders());
        try {
            refuseOtherPageSize(path, file.pageSize(), options);
            return new Store(file, options, false, new Deployment.ReadOnlyFile(file,
                    ReaderRegistry.shared(file.lockFile())));
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
            return over(pages, options, pages.pageCount() == 0);
        } catch (RuntimeException | Error e) {
            pages.close();
            throw e;
        }
    }

    /**
     * A store over any page store: {@code create} for a new one, else recovered from what the page
     * store holds; shared with other hosts if it is a {@link RemotePageStore}.
     * For tests that bring their own storage (a simulated disk, say).
     */
    static Store over(PageStore pages, StoreOptions options, boolean create) {
        return over(pages, options, create, null);
    }

    /** {@link #over(PageStore, StoreOptions, boolean)} with a redo log in {@code redo} (tests), if not null. */
    static Store over(PageStore pages, StoreOptions options, boolean create, RedoStorage redo) {
        NativeAccess.require();
        ReaderRegistry registry = ReaderRegistry.inMemory(options.maxReaders());
        if (!(pages instanceof RemotePageStore remote)) {
            Store store = new Store(pages, options, create, new Deployment.SolePages(pages, registry, redo));
            return redo == null ? store : store.withRedoLog(create);
        }
        SharedPages shared = remote.shared();
        Writeback sent = Writeback.sent(remote);
        return new Store(pages, options, create, shared.readOnly()
                ? new Deployment.RemoteReader(shared, pages, sent, registry)
                : new Deployment.RemoteWriter(shared, pages, sent, registry));
    }

    /** A store in memory with default options: same API, nothing durable. */
    public static Store inMemory() {
        return inMemory(StoreOptions.defaults());
    }

    public static Store inMemory(StoreOptions options) {
        return over(new MemoryPageStore(options.pageSize()), options, true);
    }

    /**
     * A store file is created in a directory that exists: said before anything else looks there
     * (the redo log's segments are listed in it).
     */
    private static void requireDirectoryOf(Path path) {
        Path directory = path.toAbsolutePath().getParent();
        if (directory != null && !java.nio.file.Files.isDirectory(directory)) {
            throw new io.mvbt.StorageException("cannot open store file " + path + ": directory " + directory
                    + (java.nio.file.Files.exists(directory) ? " is not a directory" : " does not exist (create it first)"));
        }
    }

    /**
     * An existing store keeps the page size it was created with: a page size the options chose
     * ({@link StoreOptions#pageSize(int)}) that differs is refused rather than ignored.
     */
    private static void refuseOtherPageSize(Path path, int filePageSize, StoreOptions options) {
        if (options.pageSizeChosen() && options.pageSize() != filePageSize) {
            throw new IllegalArgumentException("store " + path + " has " + filePageSize + "-byte pages, but the options"
                    + " ask for " + options.pageSize() + ": a store keeps the page size it was created with. Open it"
                    + " without StoreOptions.pageSize, or copy it to a new page size with Store.copyTo");
        }
    }

    /**
     * A new store is not made beside a redo log: the log's store file may only be missing (a path or
     * a mount gone wrong), and the log may hold its only copy of recent commits.
     */
    private static IllegalStateException refusedBesideLog(String where) {
        return new IllegalStateException("redo log segments lie where new store " + where + " would be created: "
                + "its store file is missing or empty; nothing was written (restore the file, or move the "
                + where + ".redo-* files away to start afresh)");
    }

    /**
     * The second half of opening a sole writer's store: the records of a redo log left in
     * {@code storage} are replayed and checkpointed, its segments deleted, and, if the options ask
     * for one, a new log started. Closes the store if this fails.
     */
    private Store withRedoLog(boolean created) {
        RedoStorage storage = redoStorage;
        try {
            long[] left = storage.segments();
            if (created && left.length > 0) {
                throw refusedBesideLog(describe());
            }
            if (options.redoLog() || left.length > 0) {
                // Kept on if this fails: the close then checkpoints what was replayed and publishes nothing else.
                policy.replaying(true);
                RedoLog redo = new RedoLog(storage, publisher.storeId());
                StoreEvents.Replay event = new StoreEvents.Replay();
                event.begin();
                long from = latest().revision;
                if (logPlan.damage() != null) {
                    logDamage = "the redo log is damaged; replayed up to revision " + logPlan.through()
                            + " and set its segments aside (replayUntilLogDamage): " + logPlan.damage();
                    System.getLogger("io.mvbt.recovery").log(System.Logger.Level.WARNING, describe() + ": "
                            + logDamage);
                }
                int replayed = RedoReplay.apply(this, storage, publisher.storeId(), logPlan);
                if (replayed > 0) {
                    holdingWriter("replay", checkpoints::checkpointHoldingWriter);
                    checkUnfailed();
                    event.end();
                    if (event.shouldCommit()) {
                        event.store = describe();
                        event.commits = replayed;
                        event.from = from;
                        event.commit();
                    }
                }
                // The metas stop naming a log before its segments go, and name the new one once it exists.
                holdingWriter("replay", w -> checkpoints.checkpointLogState());
                checkUnfailed();
                if (logDamage != null) {
                    for (long first : storage.segments()) {
                        storage.setAside(first);
                    }
                }
                redo.start(options.redoLog(), latest().revision + 1);
                if (options.redoLog()) {
                    policy.logTo(redo);
                    publisher.logging(true);
                    holdingWriter("redo log", w -> checkpoints.checkpointLogState());
                    checkUnfailed();
                }
                policy.replaying(false);
            }
            return this;
        } catch (RuntimeException | Error e) {
            try {
                close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ creation and recovery

    private void create(WriterState w) {
        publisher.storeId(new java.security.SecureRandom().nextLong());
        pages.extend(Math.max(pages.pageCount(), PageStore.META_SLOTS));
        w.space.loaded();
        Revision first = new Revision(0, 0, new TreeRoot(), FreshRoots.NONE, pages.pageCount(),
                System.currentTimeMillis(), 0, 0, 0, new TreeRoot[0]);
        publisher.publishFirst(first, w.space.flips, pages::sync);
    }

    /**
     * Decides, before recovery writes a byte, whether the redo log fits the revision the store opens
     * at ({@link RedoReplay#check}): a refusal leaves every file as it was.
     */
    private void checkLog(MetaPage.Record m) {
        if (redoStorage != null) {
            logPlan = RedoReplay.check(this, redoStorage, publisher.storeId(), m.revision, m.logged(),
                    options.replayUntilLogDamage());
        }
    }

    private void recover(WriterState w) {
        MetaPage.Record m = adoption.adopt(w, this::checkLog);
        // Before anything is allocated: the free map calls free what only named revisions reach.
        Holders held = holders.collect(peers);
        named.pinReachable(access.withTrustUnsealed(), latest(), w.space, held.revisions(), held.count());
        if (!m.steady()) {
            checkpoints.checkpoint(access.withTrustUnsealed());
        }
        path.recovered();
        if (m.steady() && BootId.isCurrent(m.bootHigh, m.bootLow)) {
            // Its writer may have died between writing it and syncing it.
            health.sync(pages::sync);
        }
        // Announces the newest meta in the reader table, unless it is announced already.
        publisher.announceHead();
    }

    /**
     * A writer opening beside readers (of other processes, or read-only stores of this one): slots
     * of dead processes are cleared, and if live ones hold older revisions, the free pages are not
     * known to be free of them (which revision freed each is not persisted), so all wait until
     * those readers are gone.
     */
    private void afterOpen(WriterState w) {
        registry.clearStale();
        long held = registry.newestBelow(latest().revision);
        if (held >= 0) {
            w.space.pendAllReusable(held);
        }
    }

    private Revision latest() {
        return publisher.latest();
    }

    private long durableRevision() {
        return publisher.durableRevision();
    }

    // ------------------------------------------------------------------ trees

    /**
     * The handle of the tree named {@code name}, whether or not such a tree exists: a handle names a
     * tree, and each revision says whether it has one. Reads of a revision without it
     * ({@link Snapshot#get}, {@link Snapshot#count}, {@link Snapshot#cursor}, …) and writes to it
     * ({@link WriteTxn#put}, {@link WriteTxn#delete}, {@link WriteTxn#deleteRange},
     * {@link WriteTxn#bulkLoad}) throw {@link io.mvbt.TreeNotFoundException};
     * {@link ReadView#hasTree} asks, {@link WriteTxn#createTree} creates it, and {@link #findTree}
     * returns the handle only if the newest revision has the tree.
     */
    public Tree tree(String name) {
        Tree tree = trees.get(name);
        if (tree == null) {
            tree = trees.computeIfAbsent(name, n -> new Tree(n, treeIds.getAndIncrement(), this));
        }
        return tree;
    }

    /** The handle of the tree named {@code name} if the newest revision has that tree; empty if not. */
    public java.util.Optional<Tree> findTree(String name) {
        Tree tree = tree(name);
        try (Snapshot s = beginRead()) {
            return s.hasTree(tree) ? java.util.Optional.of(tree) : java.util.Optional.empty();
        }
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

    Tree namedTree() {
        return namedTree;
    }

    NamedRevisions named() {
        return named;
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
        int slot = slots.claim(ReaderRegistry.SNAPSHOT);
        Snapshot snapshot;
        try {
            snapshot = new Snapshot(this, peers.hold(slot), slot, registry.flagsAddress(slot));
        } catch (RuntimeException | Error e) {
            // As a close does: a reader elsewhere also takes the revision out of what it registers,
            // which its failed open had already put there.
            release(slot);
            throw e;
        }
        return opened(slot, snapshot);
    }

    /** Lists a snapshot just made in {@code slot} among those a close flags. */
    private Snapshot opened(int slot, Snapshot snapshot) {
        snapshots.set(slot, snapshot);
        if (closed) {
            // A close began meanwhile and may have looked for open snapshots before this one was
            // there: either it saw it (both are volatile) or this sees its flag.
            snapshot.storeClosed();
            checkOpen();
        }
        return snapshot;
    }

    /** The snapshot in {@code slot} closed. */
    void release(int slot, Snapshot snapshot) {
        snapshots.compareAndSet(slot, snapshot, null);
        release(slot);
    }

    void release(int slot) {
        if (closed) {
            // The close released every slot; this one may belong to a store opened on the file since.
            return;
        }
        peers.release(slot);
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
    public void copyTo(Path target, StoreOptions options, LongConsumer entriesCopied) {
        try (Snapshot snapshot = beginRead()) {
            StoreCopy.copy(snapshot, target, options, entriesCopied);
        }
    }

    /**
     * The store's identity: chosen at random when the store was created and kept by every open of
     * it; a copy is a new store with an identity of its own. A backup chain records it, so that it
     * is never continued from another store's revisions.
     */
    public long id() {
        return publisher.storeId();
    }

    /** Newest committed revision (for a read-only store: announced by the writer). */
    public long revision() {
        return peers.newest().revision;
    }

    /** Whether the store was opened with {@link #openReadOnly}. */
    public boolean isReadOnly() {
        return peers.readOnly();
    }

    /**
     * Frees the reader slots of processes that died holding snapshots (the writer also does this
     * by itself, at open and about once a second); returns how many.
     */
    public int clearStaleReaders() {
        checkOpen();
        return registry.clearStale();
    }

    // ------------------------------------------------------------------ named revisions

    /**
     * Keeps the newest revision under {@code name} until {@link #release}: across close, reopen,
     * {@code kill -9} and power cuts, readable with {@link #beginRead(String)}, and none of its pages
     * reused meanwhile. Makes the revision durable first (a checkpoint), then commits the name
     * (SYNC). Waits for the write transaction like {@link #beginWrite()}. A name is 1 to
     * {@value NamedRevisions#MAX_NAME_BYTES} UTF-8 bytes. Returns the revision kept. To name the
     * revision a transaction commits, use {@link WriteTxn#retain}.
     *
     * @throws io.mvbt.NamedRevisionExistsException if a revision is kept under {@code name}
     */
    public long retain(String name) {
        NamedRevisions.key(name);
        checkWritable();
        writer.refuseReentry("retain");
        long[] kept = {-1};
        holdingWriter("retain", w -> {
            // Its pages reach the file, sealed, now: no later checkpoint writes a page only it reaches.
            checkpoints.checkpoint();
            checkWritable();
            try (WriteTxn tx = beginInternalWrite(w)) {
                kept[0] = tx.retainBase(name, sealedThroughFor(latest()));
                tx.commit(Durability.SYNC);
            } finally {
                named.stage(-1);
            }
        });
        return kept[0];
    }

    /**
     * Lets go of the revision kept under {@code name}, in a commit of its own: its pages that no
     * other holder reaches become free space again (once that commit is durable).
     *
     * @throws io.mvbt.NamedRevisionNotFoundException if no revision is kept under {@code name}
     */
    public void release(String name) {
        NamedRevisions.key(name);
        update(tx -> tx.release(name));
    }

    /**
     * The revisions kept under names, in name order, with the pages each alone holds. Waits for the
     * write transaction like {@link #beginWrite()} to count them; a read-only store cannot count
     * them (the free space is the writer's) and says -1.
     */
    public List<NamedRevision> namedRevisions() {
        checkOpen();
        if (peers.readOnly()) {
            return listNamed(null, null);
        }
        writer.refuseReentry("namedRevisions");
        java.util.concurrent.atomic.AtomicReference<List<NamedRevision>> out = new java.util.concurrent.atomic.AtomicReference<>();
        holdingWriter("namedRevisions", w -> {
            Holders held = holders.collect(peers);
            w.space.releasePending(held.revisions(), held.count());
            out.set(listNamed(w.space, held));
        });
        return out.get();
    }

    /** The names, with the pages each alone holds if {@code space} and {@code held} are given. */
    private List<NamedRevision> listNamed(FreeSpace space, Holders held) {
        try (Snapshot s = beginRead()) {
            List<NamedRevision> out = new java.util.ArrayList<>();
            for (NamedRevisions.Entry e : NamedRevisions.list(s.rev().reader(access), s.rev())) {
                long pinned = held == null ? -1
                        : space.pending.pagesOnlyHeldBy(e.revision().revision, held.revisions(), held.count());
                out.add(new NamedRevision(e.name(), e.revision().revision, e.revision().commitMillis, pinned));
            }
            return out;
        }
    }

    /**
     * Opens a snapshot of the revision kept under {@code name}, an ordinary snapshot in every way
     * (in a read-only store too).
     *
     * @throws io.mvbt.NamedRevisionNotFoundException if no revision is kept under {@code name}
     */
    public Snapshot beginRead(String name) {
        byte[] key = NamedRevisions.key(name);
        checkOpen();
        int slot = slots.claim(ReaderRegistry.SNAPSHOT);
        NamedRevisions.Entry e;
        try {
            try (Snapshot newest = beginRead()) {
                e = NamedRevisions.find(newest.rev().reader(access), newest.rev(), key);
                if (e == null) {
                    throw notNamed(name);
                }
                registry.hold(slot, e.revision());
            }
            // The slot holds it before this look: a release the look does not see yet is published
            // after it, and the writer reads the slots only after it publishes.
            try (Snapshot after = beginRead()) {
                NamedRevisions.Entry still = NamedRevisions.find(after.rev().reader(access), after.rev(), key);
                if (still == null || still.revision().revision != e.revision().revision) {
                    throw notNamed(name);
                }
            }
        } catch (RuntimeException | Error t) {
            release(slot);
            throw t;
        }
        return opened(slot, new Snapshot(this, e.revision(), slot, registry.flagsAddress(slot)));
    }

    /**
     * Opens a snapshot of revision {@code revision}: the newest, or one kept under a name.
     *
     * @throws io.mvbt.NamedRevisionNotFoundException if it is neither: a revision that only open
     *         snapshots hold may be let go at any moment, so it cannot be opened by number
     */
    public Snapshot beginRead(long revision) {
        checkOpen();
        Snapshot newest = beginRead();
        if (newest.revision() == revision) {
            return newest;
        }
        String name = null;
        try {
            for (NamedRevisions.Entry e : NamedRevisions.list(newest.rev().reader(access), newest.rev())) {
                if (e.revision().revision == revision) {
                    name = e.name();
                    break;
                }
            }
        } finally {
            newest.close();
        }
        if (name == null) {
            throw new io.mvbt.NamedRevisionNotFoundException("revision " + revision + " of store " + describe()
                    + " is neither the newest nor kept under a name");
        }
        return beginRead(name);
    }

    // ------------------------------------------------------------------ change feeds

    /**
     * Reports what changed from revision {@code revision} to the newest committed one, tree by tree
     * and key by key as {@link Snapshot#diff(Snapshot, DiffVisitor)} does (net changes: a key put
     * and deleted in between is not reported), and returns the newest revision, from which the next
     * call may go on if it is still readable. {@link ChangeFeed#BEGINNING} reports every tree and
     * entry. Works in a read-only store too.
     *
     * @throws io.mvbt.NamedRevisionNotFoundException if {@code revision} is neither the newest nor
     *         kept under a name: retain it, or use a {@link ChangeFeed}, to read changes since it later
     */
    public long changesSince(long revision, DiffVisitor visitor) {
        return ChangeFeed.changesSince(this, revision, visitor);
    }

    /** As {@link #changesSince(long, DiffVisitor)}, from the revision kept under {@code name}. */
    public long changesSince(String name, DiffVisitor visitor) {
        return ChangeFeed.changesSince(this, name, visitor);
    }

    /**
     * The change feed named {@code name}: a durable consumer position that {@link ChangeFeed#poll}
     * moves. Opening one writes nothing; a feed that never polled starts from the beginning.
     */
    public ChangeFeed changeFeed(String name) {
        checkOpen();
        return new ChangeFeed(this, name);
    }

    private io.mvbt.NamedRevisionNotFoundException notNamed(String name) {
        return new io.mvbt.NamedRevisionNotFoundException("no revision is kept under the name '" + name
                + "' in store " + describe());
    }

    /**
     * The revision through which every page {@code r} reaches carries a checksum, for a record that
     * names it: its own number once it is durable (a checkpoint or SYNC commit sealed it), else its
     * bound when published.
     */
    long sealedThroughFor(Revision r) {
        return durableRevision() >= r.revision ? adoption.bound(r.revision) : r.sealedThrough;
    }

    /** A commit at {@code revision} changed the named tree; it released the names of {@code released}, or null. */
    void namesCommitted(long revision, org.agrona.collections.LongArrayList released) {
        if (released != null) {
            for (int i = 0; i < released.size(); i++) {
                named.released(released.getLong(i), revision);
            }
        }
        Revision r = latest();
        named.load(r, r.reader(access));
    }

    // ------------------------------------------------------------------ writing

    /**
     * Begins the write transaction, waiting up to {@link StoreOptions#writeTimeout()} for the running
     * one. A thread that began the open write transaction and has not ended it gets an
     * {@link IllegalStateException} at once: transactions do not nest, and it would wait for itself.
     */
    public WriteTxn beginWrite() {
        return beginWrite(options.writeTimeout());
    }

    /**
     * Begins the write transaction, waiting up to {@code timeout} for the running one; the
     * {@link WriteTimeoutException} names the thread that holds it. As {@link #beginWrite()}, refuses
     * at once on the thread that holds it.
     */
    public WriteTxn beginWrite(Duration timeout) {
        checkWritable();
        writer.refuseReentry("beginWrite");
        // The clock is read only when there is a wait: it costs a few percent of a one-key commit.
        long waitedSince = 0;
        WriterState w;
        try {
            w = writer.tryAcquire();
            if (w == null) {
                if (!writer.closing()) {
                    writerWaits.incrementAndGet();
                }
                waitedSince = System.nanoTime();
                // Fails at once with ClosedException if a close begins (or began), before or during the wait.
                w = writer.tryAcquire("beginWrite", timeout.toNanos(), TimeUnit.NANOSECONDS);
                if (w == null) {
                    throw new WriteTimeoutException("another write transaction is still open after " + timeout
                            + " (one writer at a time)" + writer.heldBy());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WriteTimeoutException("interrupted while waiting for the write transaction");
        }
        Peers.Turn taken;
        try {
            long waited = waitedSince == 0 ? 0 : System.nanoTime() - waitedSince;
            taken = peers.takeTurn(w, timeout.toNanos() - waited, "beginWrite", timeout);
        } catch (RuntimeException | Error e) {
            writer.release();
            throw e;
        }
        try {
            checkWritable();
            if (writer.closing()) {
                // The close began after the permit was taken, while the turn was awaited: it waits for this.
                throw new ClosedException("store " + describe() + " was closed while beginWrite waited for its turn");
            }
            boolean checkpointed = checkpoints.learnCheckpoints(w);
            clearStaleReadersNowAndThen();
            Holders held = holders.collect(peers);
            w.space.releasePending(held.revisions(), held.count());
            if (checkpointed) {
                checkpoints.prefaultUpcoming(w);
            }
            peers.cleanStep(w);
            checkSlowReaders();
            turn = taken;
            openWrite = new WriteTxn(this, latest(), w, editor, txnScratch, committer, this::endWrite);
            return openWrite;
        } catch (RuntimeException | Error e) {
            taken.close();
            writer.release();
            throw e;
        }
    }

    /**
     * Runs {@code work} in a write transaction and commits it (with the store's default durability)
     * unless {@code work} ended it itself; returns what {@code work} returned. If {@code work} throws,
     * the transaction is aborted and the exception goes on to the caller. Waits for the writer as
     * {@link #beginWrite()} does, and, like it, refuses at once on the thread that holds the writer:
     * these calls do not nest. If a {@link #close} aborted the transaction meanwhile (from {@code work}
     * or another thread), this throws {@link ClosedException}: it returns only what a committed
     * transaction, or one {@code work} ended itself, returned. Nothing {@code work} returns may read
     * through {@code tx} afterwards (a map view or a range of it): return values.
     *
     * <pre>{@code
     * long total = store.write(tx -> scores.asMap(tx).merge("alice", 10L, Long::sum));
     * }</pre>
     */
    public <R> R write(java.util.function.Function<? super WriteTxn, ? extends R> work) {
        java.util.Objects.requireNonNull(work, "work must not be null");
        try (WriteTxn tx = beginWrite()) {
            R result = work.apply(tx);
            // A transaction that a close aborted did not end by work: its commit throws ClosedException.
            if (!tx.isFinished() || tx.abortedByClose()) {
                tx.commit();
            }
            return result;
        }
    }

    /**
     * {@link #write} for work that returns nothing, as bbolt's {@code Update}: commits unless it
     * throws (then aborts) or ended the transaction itself.
     */
    public void update(java.util.function.Consumer<? super WriteTxn> work) {
        java.util.Objects.requireNonNull(work, "work must not be null");
        write(tx -> {
            work.accept(tx);
            return null;
        });
    }

    /**
     * Runs {@code work} on a snapshot of the newest revision, closes the snapshot and returns what
     * {@code work} returned. Nothing returned may read through the snapshot afterwards (a map view,
     * a range, a cursor, a zero-copy value): copy what is kept.
     */
    public <R> R read(java.util.function.Function<? super Snapshot, ? extends R> work) {
        java.util.Objects.requireNonNull(work, "work must not be null");
        try (Snapshot snapshot = beginRead()) {
            return work.apply(snapshot);
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
        long oldest = holders.oldestReader();
        if (!policy.enabled() || oldest < 0) {
            return;
        }
        long latestRevision = latest().revision;
        boolean scan = policy.maxLag() > 0 && latestRevision - oldest > policy.maxLag();
        if (!scan && !policy.maxAge().isZero()) {
            long now = System.nanoTime();
            scan = now - lastSlowReaderScan >= 1_000_000_000L;
            if (scan) {
                lastSlowReaderScan = now;
            }
        }
        if (scan) {
            registry.reportSlow(policy, latestRevision, named::isNamed);
        }
    }

    /** The write transaction ended: its turn and the writer permit go back. */
    private void endWrite() {
        openWrite = null;
        Peers.Turn ending = turn;
        turn = Peers.NO_TURN;
        ending.close();
        writer.release();
    }

    // ------------------------------------------------------------------ durability

    /**
     * Makes every commit so far durable: with a {@link StoreOptions#redoLog redo log}, one sync of
     * the log; otherwise a checkpoint, after which the free tail of the file goes back (not once
     * {@link #check} found the store damaged).
     *
     * @throws StoreFailedException if the store has failed, also when a checkpoint that ran after this
     *     call's own failed it: the exception does not say whether this call's sync completed first
     *     (it may have); what a sync that returned made durable stays durable
     */
    public void sync() {
        checkUnfailed();
        StoreEvents.Sync event = new StoreEvents.Sync();
        event.begin();
        if (!policy.sync()) {
            checkpoints.sync();
        }
        checkUnfailed();
        event.end();
        if (event.shouldCommit()) {
            event.store = describe();
            event.revision = latest().revision;
            event.logged = policy.logged();
            event.commit();
        }
    }

    /**
     * Moves the pages in use down so that the file ends at its last page still in use, as a close
     * does ({@link StoreOptions#compactAtClose}): when an eighth of the file and 1 MiB would go, one
     * commit copies the pages above what the store needs into free ones, and a checkpoint makes it
     * durable. Pages that a named revision or a snapshot of an older revision (here or in another
     * process) reaches stay where they are, and the file ends after the last of them; a named
     * revision reads the same pages as before. For stores that stay open (after an expiry, say).
     * Waits for the write transaction like {@link #beginWrite()}. Returns the bytes the file gave back.
     */
    public long compact() {
        checkUnfailed();
        long before = pages.pageCount();
        holdingWriter("compact", w -> {
            checkpoints.checkpoint();
            try {
                Compaction.atRest(checkpoints, pages, w, named, () -> beginInternalWrite(w));
            } finally {
                // The free tail back; the writer's next pages are then prefaulted afresh.
                checkpoints.shrinkAndPrefault(w, false);
            }
        });
        checkUnfailed();
        return (before - pages.pageCount()) * pages.pageSize();
    }

    /** Runs {@code work} holding the writer permit in a turn, as a write transaction would. */
    private void holdingWriter(String what, java.util.function.Consumer<WriterState> work) {
        Duration timeout = options.writeTimeout();
        WriterState w = writer.acquire(what, timeout);
        try (Peers.Turn turn = peers.takeTurn(w, timeout.toNanos(), what, timeout)) {
            work.accept(w);
        } finally {
            writer.release();
        }
    }

    // ------------------------------------------------------------------ state

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new ClosedException("store " + describe() + " is closed");
        }
    }

    private void checkWritable() {
        checkOpen();
        checkNotReadOnly();
        health.checkWritable(describe());
    }

    /** Open for writing, and no write or fsync failed (a store found damaged may still checkpoint). */
    private void checkUnfailed() {
        checkOpen();
        checkNotReadOnly();
        health.checkUnfailed(describe());
    }

    private void checkNotReadOnly() {
        if (peers.readOnly()) {
            throw new ReadOnlyStoreException("store " + describe() + " is open read-only");
        }
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
        if (logDamage == null) {
            return adoption.dropped();
        }
        List<String> all = new java.util.ArrayList<>(adoption.dropped());
        all.add(logDamage);
        return List.copyOf(all);
    }

    /** Live counters to poll without allocation (the same object every call). */
    public StoreMetrics metrics() {
        return metrics;
    }

    long durableForMetrics() {
        return policy.durable(latest().revision, durableRevision());
    }

    Committer committer() {
        return committer;
    }

    long checkpointCount() {
        return checkpoints.count();
    }

    long writerWaitCount() {
        return writerWaits.get();
    }

    /** A consistent picture of the store's revisions, snapshots and pages. */
    public StoreStats stats() {
        checkOpen();
        long[] readers = registry.summary();
        long age = readers[2] < 0 ? -1 : Math.max(0, System.currentTimeMillis() - readers[2]);
        WriterState.SpaceCounts counts = writer.counts();
        return new StoreStats(latest().revision, durableForMetrics(), readers[0], readers[1], age, pages.pageSize(),
                pages.pageCount(), counts.inUse(), counts.reusable(), counts.pending(),
                counts.lastCommitPages(), writerWaits.get(), publisher.lockWaits(), checkpoints.count(),
                checkpoints.pagesPrefaulted());
    }

    /**
     * Checks the whole store (see {@link IntegrityChecker}); waits for the running write
     * transaction to end. A store open for writing that is found damaged refuses writes from then on
     * ({@link StoreFailedException}), keeps its file's size and deletes no page of shared storage;
     * {@link #sync} and {@link #close} still make its commits durable.
     */
    public CheckReport check() {
        return check(null);
    }

    /** {@link #check()}, telling {@code pagesChecked} how many pages it has checked, now and then. */
    public CheckReport check(LongConsumer pagesChecked) {
        checkOpen();
        if (peers.readOnly()) {
            // The free space is the writer's to know: check what a snapshot reaches.
            try (Snapshot s = beginRead()) {
                return new IntegrityChecker(this, s.rev().reader(access).uncached()).reportingTo(pagesChecked)
                        .checkTrees(s.rev(), s.rev().durableRevision);
            }
        }
        WriterState w = writer.acquire("check", options.writeTimeout());
        try (Peers.Turn t = peers.takeTurn(w, options.writeTimeout().toNanos(), "check", options.writeTimeout())) {
            CheckReport report = new IntegrityChecker(this, latest().reader(access).uncached().withTrustUnsealed())
                    .reportingTo(pagesChecked).check(latest(), durableRevision(), w.space);
            if (!report.ok()) {
                health.damaged(report.problems().get(0));
            }
            return report;
        } finally {
            writer.release();
        }
    }

    /** For tests: the writer's free space, looked at while no writer runs. */
    FreeSpace space() {
        return writer.idleStateForTests().space;
    }

    ReaderRegistry registry() {
        return registry;
    }

    PageStore pages() {
        return pages;
    }

    Writeback writeback() {
        return writeback;
    }

    /** For tests: the flips persisted in the meta of the newest revision, looked at while no writer runs. */
    FlipSet flips() {
        return space().flips;
    }

    /**
     * Closes the store; after it returns (or throws) the store holds no lock and no file, and accepts
     * nothing: every method of it and of what it opened fails with {@link ClosedException}, and
     * another process may open the file for writing. (Only a close refused with
     * {@link IllegalStateException} because it was called from inside the store's own operation,
     * below, leaves the store as it was.)
     *
     * <ul>
     * <li>A write transaction still open, in this thread or another, is aborted and nothing it wrote
     * is kept: the close waits only for the one operation it may be running in another thread (a
     * put, a commit) to end; its owner's next call then fails with {@link ClosedException}, its
     * {@code commit} can no longer succeed, and its {@code close}/{@code abort} does nothing. A sync,
     * check or compaction running in another thread is waited for. A {@code beginWrite} (or sync,
     * check, compaction) waiting for the writer when the close begins, or called after, fails at
     * once with {@link ClosedException}, without taking the writer.
     * <li>A close called from inside one of the store's own operations on the same thread (from code
     * of the caller's that the operation runs: a {@link SlowReaderPolicy} handler, the methods of a
     * key buffer a transaction reads) would wait for that operation, which waits for it: it throws
     * {@link IllegalStateException} instead and changes nothing; close the store once the operation
     * returned. A close on the thread that holds an open write transaction between its operations
     * (in {@link #write}'s function, say) aborts the transaction and closes, as above.
     * <li>Then every commit is made durable, the free tail of the file goes back, and the file and
     * its locks are released.
     * <li>Snapshots and cursors still open, in any thread, fail on their next use with
     * {@link ClosedException}; a read running at the moment of the close either completes before
     * the close released its revision or fails with {@link ClosedException}, never with another
     * revision's data. Their {@code close} does nothing more.
     * <li>Views of page memory lent before the close ({@link ReadView#get(Tree, org.agrona.DirectBuffer,
     * org.agrona.concurrent.UnsafeBuffer)}, {@link Cursor#key()}) stop being valid, as at their lender's
     * close: the memory stays mapped while they can reach it, but another process may write there.
     * </ul>
     *
     * No memory is unmapped by hand: a mapping goes when the garbage collector finds it unreachable,
     * so a thread still in a read can never touch unmapped memory, and reads pay nothing for it.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        refuseCloseInsideOwnOperation();
        // File I/O on an interrupted thread closes the channel for good, and a close must finish:
        // the interrupt is set aside until it has, and restored then.
        boolean interrupted = Thread.interrupted();
        try {
            WriterState w = takeWriterForClose();
            if (closed) {
                // Another close ran meanwhile, and gave the permit back at its end.
                writer.release();
                return;
            }
            closeHoldingWriter(w);
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Throws {@link IllegalStateException} if the calling thread is inside an operation of this
     * store that holds the writer (code of the caller's that the store calls: a slow-reader handler
     * while a transaction begins, a key buffer's method while a transaction reads it). The close
     * would wait for that operation, which waits for the close: nothing has changed yet when it throws.
     */
    private void refuseCloseInsideOwnOperation() {
        WriteTxn open = openWrite;
        boolean inTxnOperation = open != null && open.runsInCaller();
        // Holding the permit with no transaction open: inside beginWrite, sync, check or compact.
        boolean inWriterOperation = open == null && writer.heldByCaller();
        if (inTxnOperation || inWriterOperation) {
            throw new IllegalStateException("close() on thread '" + Thread.currentThread().getName() + "', which is"
                    + " inside " + (inTxnOperation ? "an operation of the store's write transaction" : "an operation"
                    + " of the store that holds its writer") + " (a callback the store runs): it cannot close the"
                    + " store under that operation; close the store after it returns");
        }
    }

    /**
     * Takes the writer permit for the close: an open write transaction is aborted (once the
     * operation it runs has ended) and its hold passes to the close; anything else that holds the
     * permit (a sync, a check, a beginWrite on its way) ends by itself and is waited for.
     */
    private WriterState takeWriterForClose() {
        writer.shut();
        WriterState w;
        while ((w = writer.tryAcquireForClose()) == null) {
            WriteTxn open = openWrite;
            if (open != null && open.abortForClose()) {
                openWrite = null;
                Peers.Turn ending = turn;
                turn = Peers.NO_TURN;
                ending.close();
                return open.writerState();
            }
            LockSupport.parkNanos(1_000_000);
        }
        return w;
    }

    /** A write transaction of the store itself, begun holding the writer permit, which gave {@code w}. */
    private WriteTxn beginInternalWrite(WriterState w) {
        return new WriteTxn(this, latest(), w, editor, txnScratch, committer, () -> { });
    }

    /**
     * In the closing turn: a checkpoint, then the pages in use move down if that pays
     * ({@link Compaction}), and the free tail goes back.
     */
    private void closingCheckpoint(WriterState w) {
        checkpoints.atClose(w);
        try {
            if (options.compactAtClose()) {
                Compaction.atRest(checkpoints, pages, w, named, () -> beginInternalWrite(w));
            }
        } finally {
            // A compaction that failed (a damaged page met on the way) left every commit as it was.
            checkpoints.shrinkHoldingWriter(w, true);
        }
    }

    private void closeHoldingWriter(WriterState w) {
        // Whether the newest meta, steady, no longer names the redo log: then its segments may go.
        boolean logReleased = false;
        // Whether the closing checkpoint made every commit durable.
        boolean checkpointed = false;
        try {
            checkpoints.stop();
            // Writers that take turns checkpoint only in a turn; if another process holds it past the
            // write timeout, this one's commits stay as durable as their mode made them.
            Peers.Turn t = checkpoints.dueAtClose() ? peers.closingTurn(w, options.writeTimeout().toNanos()) : null;
            if (t != null) {
                try (t) {
                    closingCheckpoint(w);
                    if (policy.logged() && health.failure() == null && durableRevision() == latest().revision) {
                        // The last meta stops naming the log before its segments go.
                        publisher.logging(false);
                        checkpoints.checkpointLogState();
                        logReleased = health.failure() == null && publisher.headIsSteady();
                    }
                }
                checkpointed = health.failure() == null;
            }
        } finally {
            closed = true;
            // Before their slots go: a read that then finds its snapshot still open read pages its revision held.
            for (int slot = 0; slot < snapshots.length(); slot++) {
                Snapshot open = snapshots.getAndSet(slot, null);
                if (open != null) {
                    open.storeClosed();
                }
            }
            path.closed(checkpointed);
            // Its segments go once every commit is durable in the file; else the next open replays them.
            policy.close(logReleased && health.failure() == null && durableRevision() == latest().revision);
            // Snapshots left open stop holding their revisions here: the reader table outlives this
            // store object, and a later close of theirs must not clear a slot another took since.
            registry.releaseAll();
            pages.close();
            writer.release();
        }
    }
}
