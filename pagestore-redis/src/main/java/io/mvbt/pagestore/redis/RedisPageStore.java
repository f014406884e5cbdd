// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;

import org.agrona.BufferUtil;
import static org.agrona.UnsafeAccess.UNSAFE;
import org.agrona.collections.LongArrayList;
import org.agrona.collections.LongHashSet;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Response;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

import io.mvbt.CorruptionException;
import io.mvbt.StorageException;
import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.RemotePageStore;
import io.mvbt.pagestore.SharedPages;

/**
 * Pages on Redis or a Redis Cluster, written by one writer that holds a lease. Each page is a
 * Redis value under a key of the store's name and the page number; the meta slots, the page count
 * and the page size are fields of one meta hash.
 *
 * <p>Pages are built in local memory ({@link LocalPages}) and sent on {@link #sync()}: first
 * every page written since the last sync, pipelined, then one script that checks the lease and
 * switches the meta slots. A writer that dies between the two leaves only pages no meta reaches;
 * a writer whose lease ran out cannot switch the meta. A page number is never written twice (this
 * store does not reuse pages, {@link RemotePageStore}): freed pages are deleted once no revision
 * can reach them, and a writer takes new page numbers only above what every earlier writer
 * reserved, so a stale writer still sending pages can never overwrite the new writer's.
 *
 * <p>Open a store on it with {@code Store.open(RedisPageStore.open(endpoint, name, options), storeOptions)}.
 */
public final class RedisPageStore implements RemotePageStore, SharedPages {
    private static final String LEASE_ERROR = "MVBTLEASE";
    private static final String CHECK_LEASE = "if redis.call('GET', KEYS[2]) ~= ARGV[1] then return redis.error_reply('"
            + LEASE_ERROR + " this writer no longer holds the lease') end ";
    /** Switches meta fields (ARGV[2..]: field, value, ...) if the lease holds. */
    private static final byte[] PUBLISH = RedisKeys.bytes(CHECK_LEASE
            + "redis.call('HSET', KEYS[1], unpack(ARGV, 2)) redis.call('HINCRBY', KEYS[1], 'published', 1) return 1");
    /** Raises the reserved page count to ARGV[2] (and records the page size, ARGV[3]) if the lease holds. */
    private static final byte[] RESERVE = RedisKeys.bytes(CHECK_LEASE
            + "local r = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0') "
            + "if tonumber(ARGV[2]) > r then redis.call('HSET', KEYS[1], 'reserved', ARGV[2]) end "
            + "redis.call('HSETNX', KEYS[1], 'pageSize', ARGV[3]) return 1");
    private static final byte[] SEAL_KEY = RedisKeys.bytes("sealKey");
    private static final byte[] RESERVED = RedisKeys.bytes("reserved");
    private static final long MAX_RUN_BYTES = 64L << 20;
    /** Keys a sweep step asks each SCAN for. */
    private static final int SWEEP_BATCH = 1000;
    /**
     * Bytes of pages reserved and not published that a meta hash may claim: a writer reserves
     * what it grows by, and a little ahead, until its next meta switch, and no Redis holds a
     * tebibyte of pages a writer has not synced. Past it, {@code reserved} is damage.
     */
    private static final long MAX_UNPUBLISHED_BYTES = 1L << 40;
    /**
     * Unpublished pages a takeover deletes at once, one command each (a writer that died leaves a
     * few reservation steps of at most 16,384 pages); a larger range is left to the sweep, which
     * costs what the keys in Redis cost, not what the range spans.
     */
    private static final long TAKEOVER_DELETES = 65_536;

    private final RedisNodes nodes;
    private final UnifiedJedis redis;
    private final RedisKeys keys;
    private final String where;
    /** The writer's lease; null for a reader. */
    private final WriterLease lease;
    private final ReaderRegistrations registrations;
    private final int pageSize;
    private final LocalPages local;
    /** Pages below this may be in Redis and are read on first use; pages from it on were made here. */
    private final long fresh;
    /** Pages from this one to {@link #fresh} were reserved by earlier writers and never published (a writer's). */
    private final long unpublished;
    /** The meta's publication count the meta slots in local memory are from (a reader's). */
    private String publications;
    private volatile long pageCount;
    /** Page numbers reserved in Redis for this writer to write: all below this. */
    private volatile long reserved;
    /** The last reservation that failed for want of a node, and when: others fail at once for a failover wait. */
    private RedisUnavailableException reserveFailure;
    private long reserveFailedAt;
    private final Object dirtyLock = new Object();
    /** Runs written since the last sync (page, count), to be sent. */
    private LongArrayList dirty = new LongArrayList();
    /** Runs discarded since the last sync (page, count), to be deleted. */
    private LongArrayList discarded = new LongArrayList();
    /** First pages of the runs made here and sent since (the writer's): only those, and older ones, need deleting. */
    private final LongHashSet sentHeads = new LongHashSet();
    /** The sweep under way (writer thread only), or null. */
    private ScanIteration sweeping;
    private volatile long swept;
    /** Serializes reads of pages from Redis. */
    private final Object loadLock = new Object();
    /** Serializes captures. */
    private final Object syncLock = new Object();
    /** Orders sends as their captures were made. */
    private final Object sendOrder = new Object();
    private long captures;
    private long sentCaptures;
    private volatile RuntimeException sendFailure;
    private volatile boolean closed;
    /** Replicas of each primary written to that must hold a sync's writes, and how long each WAIT may take. */
    private final int syncReplicas;
    private final long replicaTimeoutMillis;
    private final FailoverWait failover;
    /** Seals what is sent and opens what is read; null if the store is not sealed. */
    private final PageSeals seals;
    /** A revision the application knows the store published (it must not open older), or -1. */
    private final long knownRevision;

    private RedisPageStore(RedisNodes nodes, RedisKeys keys, String where, WriterLease lease, RedisStoreOptions options) {
        this.nodes = nodes;
        this.redis = nodes.client;
        this.syncReplicas = options.syncReplicas();
        this.replicaTimeoutMillis = options.replicaTimeout().toMillis();
        this.failover = new FailoverWait(nodes, options.failoverWait().toNanos());
        if (syncReplicas > 0 && options.replicaTimeout().compareTo(options.commandTimeout()) >= 0) {
            throw new IllegalArgumentException("the replica timeout " + options.replicaTimeout()
                    + " must be shorter than the command timeout " + options.commandTimeout()
                    + ", or the connection gives up on a WAIT still under way");
        }
        this.keys = keys;
        this.where = where;
        this.lease = lease;
        this.registrations = new ReaderRegistrations(redis, keys, where, options, failover);
        this.knownRevision = options.knownRevision();
        MetaHead seen = SeenHeads.newest(keys.name);
        Map<String, byte[]> fields = fields(call("read the meta hash " + RedisKeys.text(keys.meta),
                () -> redis.hgetAll(keys.meta)));
        if (lease == null && !fields.containsKey("pageCount")) {
            throw new StorageException("no store '" + keys.name + "' on " + where + " (no meta hash "
                    + RedisKeys.text(keys.meta) + ")");
        }
        this.publications = fields.containsKey("published") ? RedisKeys.text(fields.get("published")) : "0";
        this.pageSize = fields.containsKey("pageSize") ? (int) number(fields, "pageSize") : options.pageSize();
        if (!PageStore.validPageSize(pageSize)) {
            throw damaged("its page size " + pageSize + " is not a power of two from 4096 to 65536");
        }
        long published = fields.containsKey("pageCount") ? number(fields, "pageCount") : 0;
        long reservedBefore = fields.containsKey("reserved") ? number(fields, "reserved") : 0;
        if (published > reservedBefore) {
            throw damaged("its page count " + published + " exceeds the pages reserved, " + reservedBefore);
        }
        if (reservedBefore - published > MAX_UNPUBLISHED_BYTES / pageSize) {
            throw damaged("its pages reserved, " + reservedBefore + ", exceed its page count " + published + " by more"
                    + " than the " + MAX_UNPUBLISHED_BYTES / pageSize + " pages (1 TiB) a writer can have reserved and"
                    + " not published");
        }
        this.reserved = reservedBefore;
        this.seals = seals(options.sealingKeys(), fields);
        this.local = new LocalPages(pageSize, options.cacheBytes());
        byte[][] slots = openSlots(fields);
        checkNewest(fields, slots, seen);
        if (lease == null) {
            // A reader: every page is in Redis.
            this.fresh = Long.MAX_VALUE;
            this.unpublished = Long.MAX_VALUE;
            this.pageCount = published;
            copySlots(slots);
            registrations.startRefreshing();
            return;
        }
        this.fresh = Math.max(reservedBefore, META_SLOTS);
        this.unpublished = Math.max(published, META_SLOTS);
        // An empty page count tells the layer above to create a store; else every reserved page is ours to skip.
        this.pageCount = published == 0 ? 0 : reservedBefore;
        copySlots(slots);
        if (fresh > unpublished && fresh - unpublished <= TAKEOVER_DELETES) {
            // Written by a writer that died (or lost its lease) before publishing them: no meta reaches them.
            deletePages(unpublished, fresh);
        }
    }

    /**
     * How this store seals and opens values, as its meta hash says and the options allow; null if
     * unsealed. A sealed store's meta switches record {@code sealKey}: a store that has pages
     * without it was made unsealed.
     */
    private PageSeals seals(SealingKeys sealing, Map<String, byte[]> fields) {
        byte[] keyId = fields.get("sealKey");
        boolean exists = fields.containsKey("pageCount");
        if (sealing == null && (keyId == null || !exists)) {
            return null;
        }
        if (keyId == null && exists) {
            throw new StorageException(describe() + " was made unsealed, and stays so: sealing starts with a new"
                    + " store (Store.copyTo into one opened with RedisStoreOptions.sealWith)");
        }
        if (sealing == null) {
            throw new StorageException(describe() + " is sealed: open it with RedisStoreOptions.sealWith(keys)");
        }
        PageSeals made = new PageSeals(sealing, keys.name);
        try {
            if (keyId != null && exists) {
                made.requireKey(RedisKeys.text(keyId));
            }
            if (lease != null) {
                made.currentKeyId();
            }
        } catch (StorageException e) {
            throw new StorageException("cannot open sealed " + describe() + ": " + e.getMessage(), e);
        }
        return made;
    }

    /**
     * Runs a lease-checked script on the meta hash with {@code arguments} after the lease token,
     * riding through a failover; with replicas asked for, returns once they hold its effect.
     */
    private Object leaseScript(String what, byte[] script, List<byte[]> arguments) {
        List<byte[]> args = new ArrayList<>();
        args.add(lease.token());
        args.addAll(arguments);
        return riding(what, () -> {
            try (Batches batches = batches(what, syncReplicas)) {
                Response<Object> done = batches.queue(keys.meta, p -> p.eval(script, List.of(keys.meta, keys.lease), args));
                batches.finish();
                return done.get();
            }
        });
    }

    /** {@code plain} as sent: sealed if the store is. */
    private byte[] sealed(byte kind, long number, byte[] plain) {
        return seals == null ? plain : seals.seal(kind, number, plain);
    }

    /** A value read from Redis, opened if the store is sealed; one that does not open is damage naming it. */
    private byte[] opened(byte kind, long number, byte[] value) {
        if (seals == null) {
            return value;
        }
        try {
            return seals.open(kind, number, value);
        } catch (PageSeals.Refused e) {
            String what = kind == PageSeals.PAGE ? "(key " + RedisKeys.text(keys.page(number)) + ")"
                    : kind == PageSeals.META ? "(meta slot " + number + " in " + RedisKeys.text(keys.meta) + ")"
                    : "(field head of " + RedisKeys.text(keys.meta) + ")";
            throw new CorruptionException(kind == PageSeals.PAGE ? number : -1, "of sealed store '" + keys.name + "' on "
                    + where + " " + what + " is refused: " + e.getMessage());
        }
    }

    private static Map<String, byte[]> fields(Map<byte[], byte[]> meta) {
        Map<String, byte[]> fields = new java.util.HashMap<>();
        meta.forEach((field, value) -> fields.put(RedisKeys.text(field), value));
        return fields;
    }

    /** The meta slots of the meta hash, opened (null for a slot never written). */
    private byte[][] openSlots(Map<String, byte[]> fields) {
        byte[][] slots = new byte[META_SLOTS][];
        for (int slot = 0; slot < META_SLOTS; slot++) {
            byte[] stored = fields.get(Integer.toString(slot));
            slots[slot] = stored == null ? null : opened(PageSeals.META, slot, stored);
            if (slots[slot] != null && slots[slot].length != pageSize) {
                throw damaged("meta slot " + slot + " holds " + slots[slot].length + " bytes, not " + pageSize);
            }
        }
        return slots;
    }

    /** Copies opened meta slots into pages 0 to 3 (zeros for a slot never written). */
    private void copySlots(byte[][] slots) {
        for (int slot = 0; slot < META_SLOTS; slot++) {
            long address = local.take(slot, 1, null);
            if (slots[slot] == null) {
                UNSAFE.setMemory(address, pageSize, (byte) 0);
            } else {
                copyIn(slots[slot], address);
            }
        }
    }

    /**
     * Refuses meta slots whose newest meta is not the one the meta hash's head names (a slot
     * deleted, or put back from an older copy), is older than the newest this process saw of the
     * store ({@code seen}, taken before the hash was read, so that a meta published meanwhile by
     * a writer here does not count), or older than the revision the application knows. Then
     * this process has seen it.
     */
    private void checkNewest(Map<String, byte[]> fields, byte[][] slots, MetaHead seen) {
        MetaHead newest = MetaHead.newest(slots);
        byte[] stored = fields.get("head");
        if (stored != null) {
            MetaHead head = MetaHead.decode(opened(PageSeals.HEAD, 0, stored));
            if (head == null) {
                throw damaged("its field head is not a slot, sequence, revision and store id");
            }
            if (!head.equals(newest)) {
                throw rolledBack("its meta hash names the meta of " + head + " as the newest, but the newest of its"
                        + " meta slots is " + (newest == null ? "none" : "of " + newest) + ": a meta slot was deleted"
                        + " or put back from an older copy");
            }
        } else if (seals != null && fields.containsKey("pageCount")) {
            // Every meta switch of a sealed store records it: only a deletion takes it away.
            throw rolledBack("its meta hash names no newest meta (field head was deleted)");
        }
        if (newest == null) {
            if (knownRevision >= 0) {
                throw rolledBack("it holds no meta, but the application knows revision " + knownRevision + " of it");
            }
            return;
        }
        if (seen != null && newest.olderThan(seen)) {
            throw rolledBack("its newest meta, of " + newest + ", is older than one this process has seen, of " + seen);
        }
        if (newest.revision() < knownRevision) {
            throw rolledBack("its newest meta, of " + newest + ", is older than revision " + knownRevision
                    + ", which the application knows");
        }
        SeenHeads.saw(keys.name, newest);
    }

    private StoreRolledBackException rolledBack(String what) {
        return new StoreRolledBackException(describe() + " was rolled back, or is damaged: " + what
                + "; opening or following it would lose commits, and nothing was written (meta hash "
                + RedisKeys.text(keys.meta) + ")");
    }

    /**
     * Opens store {@code name} on {@code endpoint} for reading beside its writer (on any host, or
     * none): the store opened over it follows the writer's published revisions, and registers the
     * revisions its snapshots hold so that the writer deletes no page they can reach.
     */
    public static RedisPageStore openReader(RedisEndpoint endpoint, String name, RedisStoreOptions options) {
        RedisKeys keys = new RedisKeys(name);
        RedisNodes nodes = connect(endpoint, name, options);
        try {
            return new RedisPageStore(nodes, keys, endpoint.toString(), null, options);
        } catch (RuntimeException | Error e) {
            nodes.close();
            throw e;
        }
    }

    /**
     * Takes the writer lease of store {@code name} on {@code endpoint} (waiting up to
     * {@link RedisStoreOptions#leaseWait()}) and opens its pages; a store that does not exist yet
     * has no pages, and the store opened over it creates one.
     *
     * @throws io.mvbt.StoreLockedException if another writer holds the lease
     */
    public static RedisPageStore open(RedisEndpoint endpoint, String name, RedisStoreOptions options) {
        RedisKeys keys = new RedisKeys(name);
        RedisNodes nodes = connect(endpoint, name, options);
        try {
            WriterLease lease = WriterLease.acquire(nodes, keys, endpoint.toString(), options.leaseTime(),
                    options.leaseWait());
            try {
                return new RedisPageStore(nodes, keys, endpoint.toString(), lease, options);
            } catch (RuntimeException | Error e) {
                lease.close();
                throw e;
            }
        } catch (RuntimeException | Error e) {
            nodes.close();
            throw e;
        }
    }

    /** A client of {@code endpoint}; a cluster's is made by asking a seed for the slots, which may fail. */
    private static RedisNodes connect(RedisEndpoint endpoint, String name, RedisStoreOptions options) {
        try {
            return endpoint.connect(options.commandTimeout());
        } catch (JedisException e) {
            throw RedisFailures.of("connect", name, endpoint.toString(), e);
        }
    }

    @Override
    public int pageSize() {
        return pageSize;
    }

    @Override
    public long pageCount() {
        return pageCount;
    }

    @Override
    public synchronized void extend(long newPageCount) {
        checkWriter();
        // Never below what earlier writers reserved: a stale one may still be sending those pages.
        long target = Math.max(newPageCount, fresh);
        if (target <= pageCount) {
            return;
        }
        if (target > reserved) {
            // Ahead, by an eighth of the store (256 to 16,384 pages), so that growing rarely waits for Redis.
            reserve(Math.max(target, reserved + Math.min(Math.max(reserved / 8, 256), 16_384)));
        }
        pageCount = target;
    }

    private void reserve(long target) {
        RedisUnavailableException recent = reserveFailure;
        long since = System.nanoTime() - reserveFailedAt;
        if (recent != null && since < failover.waitNanos()) {
            // A growth that fails tries a smaller one next, for every page: each must not wait again.
            throw new RedisUnavailableException("a reservation failed " + since / 1_000_000 + " ms ago: "
                    + recent.getMessage(), recent.node(), recent);
        }
        try {
            // Raising the reserved count to a target is the same however often it is done; it must
            // outlive a failover before a page number in it is used (a stale writer may send those).
            leaseScript("reserve pages up to " + target + " in " + RedisKeys.text(keys.meta), RESERVE,
                    List.of(RedisKeys.bytes(Long.toString(target)), RedisKeys.bytes(Integer.toString(pageSize))));
        } catch (RedisUnavailableException e) {
            reserveFailure = e;
            reserveFailedAt = System.nanoTime();
            throw e;
        }
        reserveFailure = null;
        reserved = target;
    }

    /**
     * {@code action}'s result, tried again while a node is away ({@link FailoverWait}); a writer stops
     * trying once its lease is gone. A Jedis exception is reported as {@code what} failed.
     */
    private <T> T riding(String what, java.util.function.Supplier<T> action) {
        return failover.call(() -> {
            try {
                return action.get();
            } catch (JedisException e) {
                // From a pipeline's command: a cluster pipeline connects to a node as a command for it is queued.
                throw failure(what, null, e);
            }
        }, () -> {
            if (closed) {
                throw new StorageException(describe() + " was closed while it waited for a Redis node");
            }
            if (lease != null) {
                lease.check();
            }
        });
    }


    @Override
    public synchronized long appendRun(int pages) {
        long start = pageCount;
        extend(start + pages);
        local.take(start, pages, null);
        return start;
    }

    @Override
    public synchronized void truncate(long newPageCount) {
        checkOpen();
        // Page numbers are never handed out twice, so the pages past the end simply go unused.
        if (newPageCount < pageCount) {
            pageCount = Math.max(newPageCount, fresh);
        }
    }

    @Override
    public long roundUpToGrowthUnit(long pages) {
        return pages;
    }

    @Override
    public long runEnd(long pageNo) {
        return local.runEnd(pageNo);
    }

    @Override
    public int maxRunPages() {
        return (int) (MAX_RUN_BYTES / pageSize);
    }

    @Override
    public long address(long pageNo) {
        long address = local.address(pageNo);
        if (address != 0) {
            return address;
        }
        // A page made here and not sent reads as zeros until written; one in Redis was evicted, or never read.
        return inRedis(pageNo) ? load(pageNo) : local.take(pageNo, 1, null);
    }

    /** Whether a page (or run) not here now is in Redis: made before this writer, or sent by it. */
    private boolean inRedis(long pageNo) {
        if (pageNo < fresh) {
            return true;
        }
        synchronized (sentHeads) {
            return sentHeads.contains(pageNo);
        }
    }

    /**
     * Reads a page (or the run it starts: one value) from Redis, once. A page Redis lacks reads as
     * zeros, and fails the checks of the layer above.
     */
    private long load(long pageNo) {
        synchronized (loadLock) {
            long address = local.address(pageNo);
            if (address != 0) {
                return address;
            }
            checkOpen();
            byte[] key = keys.page(pageNo);
            String what = "read page " + pageNo + " (key " + RedisKeys.text(key) + ")";
            byte[] read = riding(what, () -> {
                try {
                    return redis.get(key);
                } catch (JedisException e) {
                    throw failure(what, key, e);
                }
            });
            return read == null ? local.take(pageNo, 1, null) : keep(pageNo, opened(PageSeals.PAGE, pageNo, read));
        }
    }

    /** Keeps a page (or run) read from Redis; checks that it is whole pages. */
    private long keep(long pageNo, byte[] bytes) {
        if (!wholePages(bytes)) {
            throw new CorruptionException(pageNo, "of store '" + keys.name + "' on " + where + " (key "
                    + RedisKeys.text(keys.page(pageNo)) + ") holds " + bytes.length + " bytes, not a run of " + pageSize
                    + "-byte pages");
        }
        return local.take(pageNo, bytes.length / pageSize, bytes);
    }

    /** Whether a value read from Redis is a page or a run of pages. */
    private boolean wholePages(byte[] bytes) {
        return bytes.length > 0 && bytes.length % pageSize == 0 && bytes.length / pageSize <= maxRunPages();
    }

    /** Reads the pages (or runs) not here yet in one pipelined request. */
    @Override
    public void prefetch(long[] pageNos, int count) {
        synchronized (loadLock) {
            checkOpen();
            List<Long> wanted = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                if (!local.has(pageNos[i]) && inRedis(pageNos[i])) {
                    wanted.add(pageNos[i]);
                }
            }
            if (wanted.isEmpty()) {
                return;
            }
            List<Response<byte[]>> replies = new ArrayList<>();
            try (AbstractPipeline pipeline = redis.pipelined()) {
                for (long pageNo : wanted) {
                    replies.add(pipeline.get(keys.page(pageNo)));
                }
                pipeline.sync();
                for (int i = 0; i < wanted.size(); i++) {
                    byte[] bytes = replies.get(i).get();
                    // A value that does not open or is not whole pages is left for the read that needs it to report.
                    try {
                        bytes = bytes == null ? null : opened(PageSeals.PAGE, wanted.get(i), bytes);
                    } catch (CorruptionException e) {
                        continue;
                    }
                    if (bytes != null && wholePages(bytes)) {
                        keep(wanted.get(i), bytes);
                    }
                }
            } catch (JedisException | IllegalStateException e) {
                // Only a hint: the pages are read one by one when they are needed, and fail then if they must.
            }
        }
    }

    @Override
    public ByteBuffer buffer(long pageNo, int pages) {
        address(pageNo);
        return local.buffer(pageNo, pages * pageSize);
    }

    @Override
    public void write(long pageNo, ByteBuffer source) {
        checkWriter();
        int length = source.remaining();
        long address = address(pageNo);
        if (source.isDirect()) {
            UNSAFE.copyMemory(BufferUtil.address(source) + source.position(), address, length);
        } else {
            UNSAFE.copyMemory(source.array(), UNSAFE.arrayBaseOffset(byte[].class) + source.arrayOffset()
                    + source.position(), null, address, length);
        }
        source.position(source.limit());
    }

    @Override
    public void written(long pageNo, int pages) {
        synchronized (dirtyLock) {
            dirty.addLong(pageNo);
            dirty.addLong(pages);
        }
        local.written(pageNo);
    }

    @Override
    public long beginSpan() {
        return local.beginSpan();
    }

    @Override
    public void endSpan(long span) {
        local.endSpan(span);
    }

    /** Pages in local memory now (those of open spans and those not sent yet may pass the budget). */
    public long cachedPages() {
        return local.pages();
    }

    /** Pages evicted from local memory since the store opened. */
    public long evictedPages() {
        return local.evictions();
    }

    @Override
    public void discard(long pageNo, int pages) {
        synchronized (dirtyLock) {
            discarded.addLong(pageNo);
            discarded.addLong(pages);
        }
        // Nothing reaches it any more: its memory goes to the next new page.
        local.release(pageNo, pages);
    }

    /**
     * Sends every page written since the last sync, deletes the discarded ones, then switches the
     * meta if the lease still holds.
     *
     * @throws LeaseLostException if the lease ran out or another writer took it
     * @throws StorageException if Redis cannot be reached or refuses a command (then every later
     *         sync fails too: the store must be reopened)
     */
    @Override
    public void sync() {
        prepareSync().run();
    }

    /**
     * Copies the pages and meta slots written since the last sync (off the heap), and returns the
     * action that sends them. Sends run in the order of their copies, so a caller may copy under its
     * lock and send after it, while commits go on.
     */
    @Override
    public Runnable prepareSync() {
        return prepare(true);
    }

    /**
     * Copies the pages written since the last sync, but not the meta slots, and returns the action
     * that sends them without a meta switch: the bulk of a checkpoint, sent while commits go on.
     */
    @Override
    public Runnable preparePages() {
        return prepare(false);
    }

    private Runnable prepare(boolean withMeta) {
        checkWriter();
        Capture capture;
        synchronized (syncLock) {
            lease.check();
            try {
                capture = capture(withMeta);
            } catch (RuntimeException | Error e) {
                // Its ticket is taken and its pages left the dirty list: no later send may go out.
                failSends(e);
                throw e;
            }
        }
        return () -> sendInTurn(capture);
    }

    /** What one sync sends: copies of the pages and meta slots written since the last, and the pages to delete. */
    private static final class Capture {
        long ticket;
        long memory;
        final LongArrayList heads = new LongArrayList();
        final LongArrayList lengths = new LongArrayList();
        final LongArrayList deletes = new LongArrayList();
        final List<byte[]> publish = new ArrayList<>();
        /** The newest meta once this capture's meta switch is made, or null. */
        MetaHead head;
    }

    private Capture capture(boolean withMeta) {
        LongArrayList runs;
        LongArrayList gone;
        synchronized (dirtyLock) {
            runs = dirty;
            gone = discarded;
            dirty = new LongArrayList();
            discarded = new LongArrayList();
            if (!withMeta) {
                // The meta slots wait for the capture that publishes them, with every page they reach.
                for (int i = 0; i < runs.size(); i += 2) {
                    if (runs.getLong(i) < META_SLOTS) {
                        dirty.addLong(runs.getLong(i));
                        dirty.addLong(runs.getLong(i + 1));
                    }
                }
            }
        }
        // Pages and runs go by their first page: a run is one value under its first page's key.
        LongHashSet goneHeads = new LongHashSet();
        for (int i = 0; i < gone.size(); i += 2) {
            goneHeads.add(gone.getLong(i));
        }
        Capture c = new Capture();
        c.ticket = captures++;
        boolean[] metaDirty = new boolean[META_SLOTS];
        LongHashSet sent = new LongHashSet();
        LongArrayList addresses = new LongArrayList();
        long bytes = 0;
        for (int i = 0; i < runs.size(); i += 2) {
            long head = runs.getLong(i);
            if (head < META_SLOTS) {
                metaDirty[(int) head] = withMeta;
                continue;
            }
            // A page discarded since it was reported has no slot any more: it is not sent.
            long address = goneHeads.contains(head) || sent.contains(head) ? 0 : local.address(head);
            if (address != 0) {
                local.copied(head, c.ticket);
                sent.add(head);
                c.heads.addLong(head);
                c.lengths.addLong(runs.getLong(i + 1) * pageSize);
                addresses.addLong(address);
                bytes += runs.getLong(i + 1) * pageSize;
            }
        }
        c.memory = UNSAFE.allocateMemory(Math.max(bytes, 1));
        long at = c.memory;
        for (int i = 0; i < c.heads.size(); i++) {
            UNSAFE.copyMemory(addresses.getLong(i), at, c.lengths.getLong(i));
            at += c.lengths.getLong(i);
        }
        synchronized (sentHeads) {
            for (long head : sent) {
                sentHeads.add(head);
            }
            for (long head : goneHeads) {
                // A page made here and never sent is not in Redis.
                if (sentHeads.remove(head) || head < fresh) {
                    c.deletes.addLong(head);
                }
            }
        }
        if (!withMeta) {
            return c;
        }
        c.publish.add(lease.token());
        c.publish.add(RedisKeys.PAGE_COUNT);
        c.publish.add(RedisKeys.bytes(Long.toString(pageCount)));
        c.publish.add(RedisKeys.PAGE_SIZE);
        c.publish.add(RedisKeys.bytes(Integer.toString(pageSize)));
        // Set again with every switch, so that a failover that lost the reservation cannot leave
        // a page count above it (only this writer raises it, under the lease).
        c.publish.add(RESERVED);
        c.publish.add(RedisKeys.bytes(Long.toString(reserved)));
        byte[][] slots = new byte[META_SLOTS][];
        for (int slot = 0; slot < META_SLOTS; slot++) {
            slots[slot] = copyOut(slot, 1);
            if (metaDirty[slot]) {
                c.publish.add(RedisKeys.slotField(slot));
                c.publish.add(slots[slot]);
            }
        }
        // Named with every switch, so that a slot deleted or put back disagrees with it.
        c.head = MetaHead.newest(slots);
        if (c.head != null) {
            c.publish.add(RedisKeys.HEAD);
            c.publish.add(c.head.encode());
        }
        return c;
    }

    /** Fails every send not made yet: after a failed capture or send, what follows cannot be trusted. */
    private void failSends(Throwable cause) {
        sendFailure = cause instanceof RuntimeException e ? e
                : new StorageException("cannot send to " + where + ": " + cause, cause);
        synchronized (sendOrder) {
            sendOrder.notifyAll();
        }
    }

    /** Sends a capture once every earlier one is sent. A failed send fails every later one. */
    private void sendInTurn(Capture c) {
        try {
            synchronized (sendOrder) {
                while (sentCaptures != c.ticket && sendFailure == null) {
                    sendOrder.wait();
                }
            }
            if (sendFailure != null) {
                throw new StorageException("an earlier send of store '" + keys.name + "' to " + where
                        + " failed, so later ones cannot be trusted; reopen the store: " + sendFailure.getMessage(),
                        sendFailure);
            }
            try {
                // Sending a capture again sends the same pages and meta: a failover may have lost the first try.
                riding("send pages and switch the meta", () -> {
                    send(c);
                    return null;
                });
                local.sent(c.heads, c.ticket);
            } catch (RuntimeException | Error e) {
                failSends(e);
                throw e;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            StorageException interrupted = new StorageException("interrupted while waiting to send to " + where);
            sendFailure = interrupted;
            throw interrupted;
        } finally {
            UNSAFE.freeMemory(c.memory);
            synchronized (sendOrder) {
                sentCaptures = Math.max(sentCaptures, c.ticket + 1);
                sendOrder.notifyAll();
            }
        }
    }

    /** Sends a capture: its pages and deletes, then the meta switch, each held by the replicas asked for. */
    private void send(Capture c) {
        try (Batches batches = batches("send pages", syncReplicas)) {
            long at = c.memory;
            for (int i = 0; i < c.heads.size(); i++) {
                byte[] value = new byte[(int) c.lengths.getLong(i)];
                UNSAFE.copyMemory(null, at, value, UNSAFE.arrayBaseOffset(byte[].class), value.length);
                at += value.length;
                byte[] key = keys.page(c.heads.getLong(i));
                byte[] sent = sealed(PageSeals.PAGE, c.heads.getLong(i), value);
                batches.queue(key, p -> p.set(key, sent));
            }
            for (int i = 0; i < c.deletes.size(); i++) {
                byte[] key = keys.page(c.deletes.getLong(i));
                batches.queue(key, p -> p.del(key));
            }
            batches.finish();
        }
        if (c.publish.isEmpty()) {
            return;
        }
        List<byte[]> publish = c.publish;
        if (seals != null) {
            // Token, page count, page size and reservation go as they are; the meta slots and head after them sealed.
            publish = new ArrayList<>(c.publish);
            for (int i = 7; i + 1 < publish.size(); i += 2) {
                boolean head = java.util.Arrays.equals(publish.get(i), RedisKeys.HEAD);
                publish.set(i + 1, head ? seals.seal(PageSeals.HEAD, 0, publish.get(i + 1))
                        : seals.seal(PageSeals.META, Long.parseLong(RedisKeys.text(publish.get(i))), publish.get(i + 1)));
            }
            publish.add(SEAL_KEY);
            publish.add(RedisKeys.bytes(seals.currentKeyId()));
        }
        // On the connection of the WAIT that follows it, which covers only that connection's writes.
        List<byte[]> switched = publish;
        try (Batches batches = batches("switch the meta hash " + RedisKeys.text(keys.meta), syncReplicas)) {
            batches.queue(keys.meta, p -> p.eval(PUBLISH, List.of(keys.meta, keys.lease), switched));
            batches.finish();
        }
        if (c.head != null) {
            SeenHeads.saw(keys.name, c.head);
        }
    }

    /** Deletes the pages from {@code from} to {@code to}, pipelined. */
    private void deletePages(long from, long to) {
        riding("delete unpublished pages", () -> {
            try (Batches batches = batches("delete unpublished pages", 0)) {
                for (long p = from; p < to; p++) {
                    byte[] key = keys.page(p);
                    batches.queue(key, pipeline -> pipeline.del(key));
                }
                batches.finish();
            }
            return null;
        });
    }

    /** A pipeline for {@code what}, with replicas asked for if {@code replicas} is above 0. */
    private Batches batches(String what, int replicas) {
        return new Batches(call(what, redis::pipelined), nodes::nodeOf, what, "store '" + keys.name + "' on " + where,
                replicas, replicaTimeoutMillis, (failed, key, e) -> e instanceof JedisDataException refused
                        ? leaseError(refused, failed, key) : failure(failed, key, e));
    }

    private byte[] copyOut(long pageNo, int count) {
        byte[] bytes = new byte[count * pageSize];
        UNSAFE.copyMemory(null, address(pageNo), bytes, UNSAFE.arrayBaseOffset(byte[].class), bytes.length);
        return bytes;
    }

    private void copyIn(byte[] bytes, long address) {
        UNSAFE.copyMemory(bytes, UNSAFE.arrayBaseOffset(byte[].class), null, address, pageSize);
    }

    /** {@code e} as a lost lease if a script refused to run for want of it, else as a failure to {@code what} {@code key}. */
    private RuntimeException leaseError(JedisDataException e, String what, byte[] key) {
        String message = e.getMessage();
        if (message != null && message.startsWith(LEASE_ERROR)) {
            lease.markLost("Redis refused a commit: " + message.substring(LEASE_ERROR.length()).trim());
            try {
                lease.check();
            } catch (LeaseLostException lost) {
                lost.initCause(e);
                return lost;
            }
        }
        return failure(what, key, e);
    }

    /** {@code e}, met trying to {@code what}, as the exception to throw; {@code key}'s node is named if known. */
    private StorageException failure(String what, byte[] key, RuntimeException e) {
        HostAndPort node = key == null ? null : nodes.nodeOf(key);
        return RedisFailures.of(what, keys.name, where, node == null ? null : node.toString(), e);
    }

    private CorruptionException damaged(String what) {
        return new CorruptionException(-1, "store '" + keys.name + "' on " + where + " is damaged: " + what
                + " (meta hash " + RedisKeys.text(keys.meta) + ")");
    }

    private long number(Map<String, byte[]> fields, String field) {
        String text = RedisKeys.text(fields.get(field));
        try {
            long value = Long.parseLong(text);
            if (value < 0) {
                throw damaged("field " + field + " is negative: " + value);
            }
            return value;
        } catch (NumberFormatException e) {
            throw damaged("field " + field + " is not a number: '" + text + "'");
        }
    }

    private <T> T call(String what, java.util.function.Supplier<T> command) {
        try {
            return command.get();
        } catch (JedisException e) {
            throw failure(what, null, e);
        }
    }

    /**
     * One step of the sweep: a SCAN batch of page keys (on every node of a cluster), of which those
     * below this writer's first page that {@code gone} names, or that earlier writers reserved and
     * never published, are deleted.
     */
    @Override
    public boolean sweep(LongPredicate gone) {
        checkWriter();
        try {
            if (sweeping == null) {
                sweeping = redis.scanIteration(SWEEP_BATCH, keys.pagePattern());
            }
            List<byte[]> doomed = new ArrayList<>();
            for (String key : sweeping.nextBatchList()) {
                long pageNo = keys.pageNumber(key);
                if (pageNo >= META_SLOTS && pageNo < fresh && (pageNo >= unpublished || gone.test(pageNo))) {
                    doomed.add(RedisKeys.bytes(key));
                }
            }
            try (Batches batches = batches("sweep page keys", 0)) {
                for (byte[] key : doomed) {
                    batches.queue(key, p -> p.del(key));
                }
                batches.finish();
            }
            swept += doomed.size();
            if (sweeping.isIterationCompleted()) {
                sweeping = null;
                return true;
            }
            return false;
        } catch (JedisException e) {
            sweeping = null;
            throw failure("sweep page keys", null, e);
        } catch (StorageException e) {
            sweeping = null;
            throw e;
        }
    }

    /** Page keys the sweep deleted since the store opened. */
    public long sweptPages() {
        return swept;
    }

    @Override
    public SharedPages shared() {
        return this;
    }

    @Override
    public boolean readOnly() {
        return lease == null;
    }

    @Override
    public synchronized void refreshMeta(boolean forSnapshot) {
        checkOpen();
        MetaHead seen = SeenHeads.newest(keys.name);
        List<?> reply = registrations.readMeta(publications, forSnapshot);
        String count = RedisKeys.text((byte[]) reply.get(0));
        if (reply.size() == 1) {
            return;
        }
        Map<byte[], byte[]> meta = new java.util.HashMap<>();
        List<?> flat = (List<?>) reply.get(1);
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            meta.put((byte[]) flat.get(i), (byte[]) flat.get(i + 1));
        }
        Map<String, byte[]> fields = fields(meta);
        long pages = fields.containsKey("pageCount") ? number(fields, "pageCount") : 0;
        byte[][] slots = openSlots(fields);
        checkNewest(fields, slots, seen);
        if (pages > pageCount) {
            pageCount = pages;
        }
        copySlots(slots);
        publications = count;
    }

    @Override
    public boolean hold(long[] revisions, int count, boolean mustReach) {
        return registrations.hold(revisions, count, mustReach);
    }

    @Override
    public void onLapse(java.util.function.Consumer<long[]> lapsed) {
        registrations.onLapse(lapsed);
    }

    @Override
    public Held heldElsewhere(long maxAgeNanos) {
        return registrations.heldElsewhere(maxAgeNanos);
    }

    @Override
    public boolean durable() {
        return true;
    }

    @Override
    public String describe() {
        return "store '" + keys.name + "' on redis " + where;
    }

    private void checkWriter() {
        checkOpen();
        if (lease == null) {
            throw new IllegalStateException(describe() + " is open for reading only");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("page store " + describe() + " is closed");
        }
    }

    /** Gives the lease back and lets go of the connection; the local memory goes with the last reference. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (lease != null) {
                lease.close();
            }
            registrations.close();
        } finally {
            nodes.close();
        }
    }
}
