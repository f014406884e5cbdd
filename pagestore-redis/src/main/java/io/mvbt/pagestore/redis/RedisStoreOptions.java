// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.time.Duration;

import io.mvbt.pagestore.PageStore;

/**
 * How a store on Redis is opened. Immutable; each setter returns a changed copy.
 *
 * <p>Defaults: 4096-byte pages (for a new store), a 10 second writer lease, no wait for another
 * writer's lease, a 5 second timeout per Redis command, a 10 second registration for readers
 * on other hosts, 1 GiB of local memory for pages, no replica acknowledgement, and 20 seconds
 * to ride through a failover.
 */
public final class RedisStoreOptions {
    private final int pageSize;
    private final Duration leaseTime;
    private final Duration leaseWait;
    private final Duration commandTimeout;
    private final Duration readerLease;
    private final long cacheBytes;
    private final int syncReplicas;
    private final Duration replicaTimeout;
    private final Duration failoverWait;
    private final SealingKeys sealingKeys;
    private final long knownRevision;

    private RedisStoreOptions(int pageSize, Duration leaseTime, Duration leaseWait, Duration commandTimeout,
            Duration readerLease, long cacheBytes, int syncReplicas, Duration replicaTimeout, Duration failoverWait,
            SealingKeys sealingKeys, long knownRevision) {
        this.pageSize = pageSize;
        this.leaseTime = leaseTime;
        this.leaseWait = leaseWait;
        this.commandTimeout = commandTimeout;
        this.readerLease = readerLease;
        this.cacheBytes = cacheBytes;
        this.syncReplicas = syncReplicas;
        this.replicaTimeout = replicaTimeout;
        this.failoverWait = failoverWait;
        this.sealingKeys = sealingKeys;
        this.knownRevision = knownRevision;
    }

    public static RedisStoreOptions defaults() {
        return new RedisStoreOptions(4096, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(5),
                Duration.ofSeconds(10), 1L << 30, 0, Duration.ofSeconds(1), Duration.ofSeconds(20), null, -1);
    }

    /** Page size of a store created with these options; an existing store keeps its own. */
    public RedisStoreOptions pageSize(int pageSize) {
        if (!PageStore.validPageSize(pageSize)) {
            throw new IllegalArgumentException("page size must be a power of two from " + PageStore.MIN_PAGE_SIZE
                    + " to " + PageStore.MAX_PAGE_SIZE + ", not " + pageSize);
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes, syncReplicas,
                replicaTimeout, failoverWait, sealingKeys, knownRevision);
    }

    /**
     * How long the writer's lease lasts without a refresh (refreshed every third of it): after a
     * writer dies, another can take over once this has passed. At least 300 ms.
     */
    public RedisStoreOptions leaseTime(Duration leaseTime) {
        if (leaseTime.toMillis() < 300) {
            throw new IllegalArgumentException("a lease time below 300 ms leaves no time to refresh it: " + leaseTime);
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes, syncReplicas,
                replicaTimeout, failoverWait, sealingKeys, knownRevision);
    }

    /** How long opening waits for another writer's lease to end before it fails. */
    public RedisStoreOptions leaseWait(Duration leaseWait) {
        if (leaseWait.isNegative()) {
            throw new IllegalArgumentException("negative lease wait: " + leaseWait);
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes, syncReplicas,
                replicaTimeout, failoverWait, sealingKeys, knownRevision);
    }

    /** How long one Redis command may take before it fails (an unreachable node fails after this). */
    public RedisStoreOptions commandTimeout(Duration commandTimeout) {
        if (commandTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("command timeout below 1 ms: " + commandTimeout);
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes, syncReplicas,
                replicaTimeout, failoverWait, sealingKeys, knownRevision);
    }


    /**
     * How long a reader's registration lasts without a refresh (refreshed every third of it): a
     * reader that stalls longer may find pages of its snapshots deleted. At least 300 ms.
     */
    public RedisStoreOptions readerLease(Duration readerLease) {
        if (readerLease.toMillis() < 300) {
            throw new IllegalArgumentException("a reader lease below 300 ms leaves no time to refresh it: " + readerLease);
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes, syncReplicas,
                replicaTimeout, failoverWait, sealingKeys, knownRevision);
    }

    /**
     * The memory budget for the pages kept locally (off the heap). Past it, pages that are in Redis
     * are evicted, least recently used first, and read again when needed. Two kinds of pages may
     * pass it: those a snapshot or write transaction still open has looked up (its zero-copy views
     * stay valid until it closes), and the writer's pages not sent yet (until the next checkpoint
     * or durable commit). At least 256 KiB (and never fewer than 64 pages).
     */
    public RedisStoreOptions cacheBytes(long cacheBytes) {
        if (cacheBytes < (256 << 10)) {
            throw new IllegalArgumentException("a page cache below 256 KiB: " + cacheBytes + " bytes");
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes, syncReplicas,
                replicaTimeout, failoverWait, sealingKeys, knownRevision);
    }

    /**
     * How many replicas of each Redis primary written to must hold a sync's pages and its meta
     * before the sync returns ({@code WAIT count} after the pages and after the meta switch, on
     * the connections that sent them), and how long each {@code WAIT} may take. With 0 (the
     * default) a sync returns once the primaries have the writes, and a primary lost before its
     * replicas copied them loses them (docs/redis.md, "Durability with replicas"). A shortfall
     * counts as a node away: the sync tries again until {@link #failoverWait} has passed.
     */
    public RedisStoreOptions syncReplicas(int count, Duration timeout) {
        if (count < 0) {
            throw new IllegalArgumentException("negative replica count: " + count);
        }
        if (timeout.toMillis() < 1) {
            throw new IllegalArgumentException("a replica timeout below 1 ms: " + timeout);
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes, count,
                timeout, failoverWait, sealingKeys, knownRevision);
    }

    /**
     * How long a sync, a page read or a reader's snapshot keeps trying when a Redis node goes away
     * or answers that it cannot serve (a failover under way: its replica is promoted within the
     * cluster's node timeout, 15 s by default) before it fails and the store must be reopened.
     * Safe to retry: pages are never written twice with different contents and the meta switch
     * checks the lease. A writer rides through a failover of the node holding its lease only if
     * {@link #leaseTime} outlasts it (docs/redis.md). Zero fails at the first error.
     */
    public RedisStoreOptions failoverWait(Duration failoverWait) {
        if (failoverWait.isNegative()) {
            throw new IllegalArgumentException("negative failover wait: " + failoverWait);
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes,
                syncReplicas, replicaTimeout, failoverWait, sealingKeys, knownRevision);
    }

    /**
     * Seals every page and meta slot the store sends with AES-GCM under {@code keys}: whoever can
     * read Redis sees ciphertext, and a value altered, moved to another page number or taken from
     * another store is refused as {@link io.mvbt.CorruptionException}. Only a new store can be
     * sealed, and a sealed store opens only with keys that hold every key id its values name
     * (docs/redis.md, "Sealed pages").
     */
    public RedisStoreOptions sealWith(SealingKeys keys) {
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes,
                syncReplicas, replicaTimeout, failoverWait, java.util.Objects.requireNonNull(keys), knownRevision);
    }

    /**
     * A revision the application knows this store has published, from a record it keeps outside
     * Redis (a high-water mark: {@code Store.revision()} after a commit it relies on): the store
     * refuses to open at an older newest revision, and a reader refuses to follow one, with
     * {@link StoreRolledBackException}. Only such a record tells a meta hash restored whole from
     * an older copy from the real one, in a process that never saw the newer (docs/redis.md).
     */
    public RedisStoreOptions knownRevision(long revision) {
        if (revision < 0) {
            throw new IllegalArgumentException("negative revision: " + revision);
        }
        return new RedisStoreOptions(pageSize, leaseTime, leaseWait, commandTimeout, readerLease, cacheBytes,
                syncReplicas, replicaTimeout, failoverWait, sealingKeys, revision);
    }

    /** The revision the store must hold at least when it opens ({@link #knownRevision(long)}), or -1. */
    public long knownRevision() {
        return knownRevision;
    }

    /** The keys pages are sealed with, or null if they are not. */
    public SealingKeys sealingKeys() {
        return sealingKeys;
    }

    public int syncReplicas() {
        return syncReplicas;
    }

    public Duration replicaTimeout() {
        return replicaTimeout;
    }

    public Duration failoverWait() {
        return failoverWait;
    }

    public long cacheBytes() {
        return cacheBytes;
    }

    public Duration readerLease() {
        return readerLease;
    }

    public int pageSize() {
        return pageSize;
    }

    public Duration leaseTime() {
        return leaseTime;
    }

    public Duration leaseWait() {
        return leaseWait;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

}
