// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

import io.mvbt.StoreLockedException;

/**
 * The one writer's lease on a store: a key holding a random token, set only if absent and with a
 * deadline, refreshed by a daemon thread every third of the lease time. Scripts that change the
 * store check the token on the server ({@link #token}), so a writer that lost its lease cannot
 * commit even before it notices; {@link #check} lets it notice early.
 */
final class WriterLease implements AutoCloseable {
    private static final byte[] REFRESH = RedisKeys.bytes(
            "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end return 0");
    private static final byte[] RELEASE = RedisKeys.bytes(
            "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end return 0");

    /** How soon a refresh that failed is tried again. */
    private static final long RETRY_NANOS = 100_000_000L;

    private final RedisNodes nodes;
    private final UnifiedJedis redis;
    private final RedisKeys keys;
    private final String where;
    private final long leaseNanos;
    private final byte[] token;
    private final Thread refresher;
    /** System.nanoTime() until which the lease is surely ours: the send time of the last good refresh plus the lease time. */
    private volatile long validUntil;
    /** Why the lease is lost, once it is; null while it holds. */
    private volatile String lost;
    private volatile boolean closed;

    private WriterLease(RedisNodes nodes, RedisKeys keys, String where, Duration leaseTime, byte[] token, long validUntil) {
        this.nodes = nodes;
        this.redis = nodes.client;
        this.keys = keys;
        this.where = where;
        this.leaseNanos = leaseTime.toNanos();
        this.token = token;
        this.validUntil = validUntil;
        this.refresher = new Thread(this::refreshLoop, "mvbt-lease-" + keys.name);
        refresher.setDaemon(true);
        refresher.start();
    }

    /**
     * Takes the lease, waiting up to {@code wait} for another writer's to end.
     *
     * @throws StoreLockedException if another writer still holds it after the wait
     */
    static WriterLease acquire(RedisNodes nodes, RedisKeys keys, String where, Duration leaseTime, Duration wait) {
        UnifiedJedis redis = nodes.client;
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        byte[] token = RedisKeys.bytes(ProcessHandle.current().pid() + "@" + hostName() + "/"
                + HexFormat.of().formatHex(random));
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            long sent = System.nanoTime();
            String reply;
            byte[] holder;
            long ttl;
            try {
                reply = redis.set(keys.lease, token, SetParams.setParams().nx().px(leaseTime.toMillis()));
                if ("OK".equals(reply)) {
                    return new WriterLease(nodes, keys, where, leaseTime, token, sent + leaseTime.toNanos());
                }
                holder = redis.get(keys.lease);
                ttl = redis.pttl(keys.lease);
            } catch (JedisException e) {
                throw RedisFailures.of("take the writer lease " + RedisKeys.text(keys.lease), keys.name, where, e);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new StoreLockedException("store '" + keys.name + "' on " + where + " has a writer: "
                        + (holder == null ? "(just gone)" : RedisKeys.text(holder)) + " holds its lease for another "
                        + Math.max(ttl, 0) + " ms");
            }
            sleepMillis(Math.max(1, Math.min(Math.max(ttl, 1), 50)));
        }
    }

    /** The token scripts compare with the lease key. */
    byte[] token() {
        return token;
    }

    /** Whether the lease holds now, as far as this writer knows. */
    void check() {
        String why = lost;
        if (why != null) {
            throw new LeaseLostException("the writer lease of store '" + keys.name + "' on " + where + " is lost: " + why);
        }
        if (System.nanoTime() - validUntil >= 0) {
            throw new LeaseLostException("the writer lease of store '" + keys.name + "' on " + where
                    + " ran out: it could not be refreshed in time");
        }
    }

    /** Records that the server refused a script because the lease is gone. */
    void markLost(String why) {
        if (lost == null) {
            lost = why;
        }
    }

    private void refreshLoop() {
        long period = leaseNanos / 3;
        long pause = period;
        while (!closed && lost == null) {
            try {
                Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
            } catch (InterruptedException e) {
                return;
            }
            if (closed) {
                return;
            }
            long sent = System.nanoTime();
            try (AbstractPipeline once = redis.pipelined()) {
                // A pipeline, which fails at once where the client would retry for seconds: this loop retries sooner.
                Response<Object> reply = once.eval(REFRESH, List.of(keys.lease),
                        List.of(token, RedisKeys.bytes(Long.toString(leaseNanos / 1_000_000))));
                once.sync();
                Object held = reply.get();
                if (Long.valueOf(1).equals(held)) {
                    validUntil = sent + leaseNanos;
                    pause = period;
                } else {
                    markLost("another writer took it over, or it expired before a refresh reached Redis");
                }
            } catch (JedisException | IllegalStateException e) {
                // Redis unreachable, a failover perhaps: try again soon, so that the promoted replica
                // hears from this writer before the lease it copied runs out.
                pause = Math.min(period, RETRY_NANOS);
                nodes.refresh();
            }
        }
    }

    /** Stops refreshing and gives the lease back, if it is still ours. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        refresher.interrupt();
        try {
            refresher.join(leaseNanos / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (lost == null) {
            try {
                redis.eval(RELEASE, List.of(keys.lease), List.of(token));
            } catch (JedisException e) {
                // The lease expires by itself.
            }
        }
    }

    static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "unknown-host";
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreLockedException("interrupted while waiting for a writer lease");
        }
    }
}
