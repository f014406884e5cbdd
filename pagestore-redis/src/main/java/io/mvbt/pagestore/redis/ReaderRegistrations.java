// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

import io.mvbt.StorageException;
import io.mvbt.pagestore.SharedPages;

/**
 * The readers of a store on other hosts, in one hash ({@code {mvbt:NAME}:readers}) in the meta's
 * slot: a field per reader process holding a deadline (Redis time, milliseconds) and the revisions
 * its snapshots hold, with a {@code ?} while it is between reading a meta and registering what it
 * read (see {@link SharedPages}). A reader refreshes its field every third of its lifetime; the
 * writer's look drops fields past their deadline, so a crashed reader's hold ends by itself.
 * Deadlines come from Redis's clock ({@code TIME}), so the hosts' clocks need not agree.
 *
 * <p>A live reader that stalls past its deadline (a long pause, Redis out of reach) loses its
 * field the same way, and the writer may then free what its snapshots read. Each write of the
 * field says whether the reader expects it to be there, so the first one after such a lapse finds
 * it gone and reports the revisions it held ({@link SharedPages#onLapse}).
 */
final class ReaderRegistrations implements AutoCloseable {
    private static final String NOW = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) ";
    /**
     * KEYS: readers. ARGV: known publication count, reader, lifetime, held revisions with the
     * reading mark, whether to mark, whether the reader's field should be there, the meta hash.
     * Returns {'lapsed'} (writing nothing) if the field should be there and is not; else marks the
     * reader as reading and returns the count, and the meta hash if the count changed. A lapse is
     * never written over in the step that finds it, so a reply lost (or a script run again by the
     * client) finds it again.
     *
     * <p>The meta hash is named in ARGV, not KEYS: Redis's ACL lets a script declare only keys the
     * user may write, and a reader's user may only read the meta (docs/redis.md, least privilege).
     * It shares the readers hash's hash slot, so a cluster runs the script where both are, except
     * while that slot migrates key by key: then the meta may not be here yet, and the script says
     * {'nometa'} (having written nothing the caller does not write again) for the caller to retry.
     */
    private static final byte[] READ_META = RedisKeys.bytes(NOW
            + "if ARGV[5] == '1' then "
            + "  if ARGV[6] == '1' and redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then return {'lapsed'} end "
            + "  redis.call('HSET', KEYS[1], ARGV[2], (now + tonumber(ARGV[3])) .. ' ' .. ARGV[4]) "
            + "end "
            + "if redis.call('EXISTS', ARGV[7]) == 0 then return {'nometa'} end "
            + "local p = redis.call('HGET', ARGV[7], 'published') or '0' "
            + "if p == ARGV[1] then return {p} end return {p, redis.call('HGETALL', ARGV[7])}");
    /**
     * KEYS: readers. ARGV: reader, lifetime, held revisions (',' separated, '?' if reading), whether a
     * reading mark must still be there, whether the reader's field should be there. Writes nothing
     * and returns {@link #LAPSED} if the field should be there and is not, or {@link #MARK_GONE} if
     * the mark must be there and is not; else writes and returns {@link #WRITTEN}.
     */
    private static final byte[] REGISTER = RedisKeys.bytes(NOW
            + "local cur = redis.call('HGET', KEYS[1], ARGV[1]) "
            + "if ARGV[5] == '1' and not cur then return 2 end "
            + "if ARGV[4] == '1' and (not cur or not string.find(cur, '?', 1, true)) then return 0 end "
            + "if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) "
            + "else redis.call('HSET', KEYS[1], ARGV[1], (now + tonumber(ARGV[2])) .. ' ' .. ARGV[3]) end "
            + "return 1");
    private static final long MARK_GONE = 0;
    private static final long WRITTEN = 1;
    private static final long LAPSED = 2;
    private static final byte[] LIVE = RedisKeys.bytes(NOW
            + "local all = redis.call('HGETALL', KEYS[1]) local live = {} "
            + "for i = 1, #all, 2 do "
            + "  local deadline, held = string.match(all[i + 1], '^(%d+) (.*)$') "
            + "  if deadline == nil or tonumber(deadline) < now then redis.call('HDEL', KEYS[1], all[i]) "
            + "  else live[#live + 1] = held end "
            + "end return live");

    private final UnifiedJedis redis;
    private final RedisKeys keys;
    private final String where;
    private final FailoverWait failover;
    /** Replicas that must hold a registration before a snapshot relies on it (as a sync waits for them). */
    private final int replicas;
    /** Replicas online at the meta's primary when this reader last registered (ROLE): how many to wait for next. */
    private int online;
    private final long replicaTimeoutMillis;
    private final long lifetimeMillis;
    /** How long a reader waits for the meta hash during a slot migration before it fails. */
    private final long migrationWaitNanos;
    private final byte[] readerId;
    private Thread refresher;
    private volatile boolean closed;

    // Reader side: what the snapshots hold, and whether a meta was read and its revision not yet registered.
    private long[] holding = new long[0];
    private boolean reading;
    /** What the reader's field in Redis holds, as last written; empty if it has none. */
    private long[] registered = new long[0];
    private boolean registeredReading;
    /** A lapse took the reading mark away before the hold that ends it: that hold must fail. */
    private boolean markLapsed;
    private Consumer<long[]> lapseListener = revisions -> { };

    // Writer side: the last successful look (at first none, dated long ago).
    private SharedPages.Held lastLook = new SharedPages.Held(new long[0], true, System.nanoTime() - (1L << 62));

    ReaderRegistrations(UnifiedJedis redis, RedisKeys keys, String where, RedisStoreOptions options,
            FailoverWait failover) {
        long lifetimeMillis = options.readerLease().toMillis();
        this.redis = redis;
        this.failover = failover;
        this.replicas = options.syncReplicas();
        this.online = replicas;
        this.replicaTimeoutMillis = options.replicaTimeout().toMillis();
        this.keys = keys;
        this.where = where;
        this.lifetimeMillis = lifetimeMillis;
        this.migrationWaitNanos = lifetimeMillis * 1_000_000L;
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        this.readerId = RedisKeys.bytes(ProcessHandle.current().pid() + "@" + WriterLease.hostName() + "/"
                + HexFormat.of().formatHex(random));
    }

    /** Reader side: starts refreshing this reader's registration. */
    void startRefreshing() {
        refresher = new Thread(this::refreshLoop, "mvbt-reader-" + keys.name);
        refresher.setDaemon(true);
        refresher.start();
    }

    /**
     * Reader side: returns the publication count, and the meta hash if it changed; with {@code mark},
     * marks this reader as reading in the same step.
     */
    synchronized List<?> readMeta(String knownPublications, boolean mark) {
        long deadline = System.nanoTime() + migrationWaitNanos;
        while (true) {
            // Repeatable: it writes this reader's own field, and says if the field it expected was gone.
            List<?> reply = riding("read the meta hash " + RedisKeys.text(keys.meta), () -> (List<?>) registering(READ_META,
                    List.of(keys.readers), List.of(RedisKeys.bytes(knownPublications), readerId,
                            RedisKeys.bytes(Long.toString(lifetimeMillis)), RedisKeys.bytes(joined(holding, true)),
                            RedisKeys.bytes(mark ? "1" : "0"), RedisKeys.bytes(expectRegistered()), keys.meta)));
            if (RedisKeys.text((byte[]) reply.get(0)).equals("lapsed")) {
                // Told now, and the next try expects no field: it registers afresh.
                lapsed();
                continue;
            }
            if (RedisKeys.text((byte[]) reply.get(0)).equals("nometa")) {
                if (System.nanoTime() - deadline > 0) {
                    throw new StorageException("cannot read the meta hash " + RedisKeys.text(keys.meta) + " of store '"
                            + keys.name + "' on " + where + ": it is not on the node of "
                            + RedisKeys.text(keys.readers) + " (a slot still migrating?)");
                }
                LockSupport.parkNanos(20_000_000L);
                continue;
            }
            if (mark) {
                reading = true;
                wrote(true);
            }
            return reply;
        }
    }

    /** Reader side: see {@link SharedPages#onLapse}. */
    synchronized void onLapse(Consumer<long[]> listener) {
        lapseListener = listener;
    }

    private String expectRegistered() {
        return registered.length > 0 || registeredReading ? "1" : "0";
    }

    /** The reader's field now holds {@link #holding} (and the reading mark if {@code withMark}). */
    private void wrote(boolean withMark) {
        registered = holding;
        registeredReading = withMark;
    }

    /** The reader's field was found gone: what it held is no longer protected. */
    private void lapsed() {
        if (registeredReading) {
            markLapsed = true;
        }
        long[] lost = registered;
        registered = new long[0];
        registeredReading = false;
        if (lost.length > 0) {
            lapseListener.accept(lost);
        }
    }

    /** Reader side: see {@link SharedPages#hold}. */
    synchronized boolean hold(long[] revisions, int count, boolean mustReach) {
        holding = Arrays.copyOf(revisions, count);
        if (!mustReach) {
            return true;
        }
        boolean marked = reading;
        reading = false;
        boolean reached = send(marked);
        if (markLapsed) {
            // The mark was gone for a while, so the writer may have let the meta's revision go.
            markLapsed = false;
            return false;
        }
        return reached;
    }

    private static String joined(long[] revisions, boolean reading) {
        StringBuilder text = new StringBuilder();
        for (long r : revisions) {
            text.append(text.length() == 0 ? "" : ",").append(r);
        }
        if (reading) {
            text.append(text.length() == 0 ? "?" : ",?");
        }
        return text.toString();
    }

    /**
     * Sends what the snapshots hold (with the reading mark if {@link #reading}); false if
     * {@code markExpected} and the mark or the whole field lapsed.
     */
    private boolean send(boolean markExpected) {
        Object done = riding("register the snapshots of this reader in " + RedisKeys.text(keys.readers),
                () -> registering(REGISTER, List.of(keys.readers), List.of(readerId,
                        RedisKeys.bytes(Long.toString(lifetimeMillis)), RedisKeys.bytes(joined(holding, reading)),
                        RedisKeys.bytes(markExpected ? "1" : "0"), RedisKeys.bytes(expectRegistered()))));
        long result = done instanceof Long l ? l : -1;
        if (result == LAPSED) {
            lapsed();
            // What the snapshots hold now goes out afresh; a mark that had to be there is gone.
            return !markExpected && send(false);
        }
        if (result == WRITTEN) {
            wrote(reading);
        }
        return result == WRITTEN;
    }

    private void refreshLoop() {
        while (!closed) {
            try {
                Thread.sleep(lifetimeMillis / 3);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
                try {
                    send(false);
                } catch (RuntimeException e) {
                    // Redis unreachable (or the lapse listener failed): the next refresh or snapshot tries again.
                }
            }
        }
    }

    /** Writer side: see {@link SharedPages#heldElsewhere}. */
    synchronized SharedPages.Held heldElsewhere(long maxAgeNanos) {
        long start = System.nanoTime();
        if (start - lastLook.lookedAtNanos() <= maxAgeNanos) {
            return lastLook;
        }
        List<?> live;
        try {
            live = (List<?>) redis.eval(LIVE, List.of(keys.readers), List.of());
        } catch (JedisException e) {
            return lastLook;
        }
        long[] held = new long[16];
        int n = 0;
        boolean someoneReading = false;
        for (Object entry : live) {
            String text = entry instanceof byte[] b ? RedisKeys.text(b) : String.valueOf(entry);
            for (String part : text.split(",")) {
                if (part.equals("?")) {
                    someoneReading = true;
                    continue;
                }
                if (n == held.length) {
                    held = Arrays.copyOf(held, n * 2);
                }
                try {
                    held[n++] = Long.parseLong(part.trim());
                } catch (NumberFormatException e) {
                    throw new StorageException("damaged reader registration in " + RedisKeys.text(keys.readers)
                            + " of store '" + keys.name + "' on " + where + ": '" + text + "'");
                }
            }
        }
        lastLook = new SharedPages.Held(Arrays.stream(held, 0, n).sorted().distinct().toArray(), someoneReading, start);
        return lastLook;
    }

    private StorageException failure(String what, JedisException e) {
        return RedisFailures.of(what, keys.name, where, e);
    }

    /**
     * Runs a script that writes this reader's field and, with replicas asked for, waits until they
     * hold it: a registration lost in a failover would let the writer delete pages a snapshot
     * reads. The wait goes on the connection that sent the script, which is all it covers.
     *
     * <p>It waits for as many of them as are online at the meta's primary ({@code ROLE}, sent
     * with it, counted for the next registration): a primary whose replicas are away (just
     * promoted, its old master not back yet) cannot fail over, and the replica that comes back
     * copies all it holds, so no failover can lose what only it acknowledged. Waiting for replicas
     * that are not there would stall every snapshot open until one comes back, as long as a
     * failover's second half, or for good if none does; the writer's syncs do wait then.
     */
    private Object registering(byte[] script, List<byte[]> scriptKeys, List<byte[]> args) {
        if (replicas == 0) {
            return redis.eval(script, scriptKeys, args);
        }
        try (AbstractPipeline pipeline = redis.pipelined()) {
            int asked = Math.min(replicas, online);
            Response<Object> reply = pipeline.eval(script, scriptKeys, args);
            Response<Long> held = asked > 0
                    ? RedisNodes.queueWait(pipeline, scriptKeys.get(0), asked, replicaTimeoutMillis) : null;
            Response<Object> role = RedisNodes.queueRole(pipeline, scriptKeys.get(0));
            pipeline.sync();
            Object result = reply.get();
            online = RedisNodes.onlineReplicas(role.get());
            long acknowledged = held == null ? 0 : held.get();
            if (acknowledged < Math.min(replicas, online)) {
                throw new RedisUnavailableException("cannot register the snapshots of a reader of store '" + keys.name
                        + "' on " + where + ": " + acknowledged + " of the " + Math.min(replicas, online)
                        + " replicas asked for (of " + online + " online) acknowledged it within "
                        + replicaTimeoutMillis + " ms", null, null);
            }
            return result;
        } catch (IllegalStateException e) {
            // A cluster pipeline leaves the replies of a node it lost unset.
            throw RedisFailures.of("register the snapshots of a reader", keys.name, where, e);
        }
    }

    /** {@code command}'s reply, tried again while a node is away, until the reader closes. */
    private <T> T riding(String what, java.util.function.Supplier<T> command) {
        return failover.call(() -> {
            try {
                return command.get();
            } catch (JedisException e) {
                throw failure(what, e);
            }
        }, () -> {
            if (closed) {
                throw new StorageException("the reader of store '" + keys.name + "' on " + where + " closed");
            }
        });
    }

    /** Reader side: stops refreshing and takes the registration away. */
    @Override
    public void close() {
        closed = true;
        if (refresher == null) {
            return;
        }
        refresher.interrupt();
        synchronized (this) {
            try {
                holding = new long[0];
                reading = false;
                lapseListener = revisions -> { };
                send(false);
            } catch (StorageException e) {
                // It expires by itself.
            }
        }
    }
}
