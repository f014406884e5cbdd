package io.mvbt.pagestore.redis;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import io.mvbt.pagestore.SharedPages;
import io.mvbt.pagestore.StorageException;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The readers of a store on other hosts, in one hash ({@code {mvbt:NAME}:readers}) in the meta's
 * slot: a field per reader process holding a deadline (Redis time, milliseconds) and the revisions
 * its snapshots hold, with a {@code ?} while it is between reading a meta and registering what it
 * read (see {@link SharedPages}). A reader refreshes its field every third of its lifetime; the
 * writer's look drops fields past their deadline, so a crashed reader's hold ends by itself.
 * Deadlines come from Redis's clock ({@code TIME}), so the hosts' clocks need not agree.
 */
final class ReaderRegistrations implements AutoCloseable {
    private static final String NOW = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) ";
    /**
     * KEYS: meta, readers. ARGV: known publication count, reader, lifetime, held revisions with the
     * reading mark, whether to mark. Marks the
     * reader as reading and returns the count, and the meta hash if the count changed.
     */
    private static final byte[] READ_META = RedisKeys.bytes(NOW
            + "if ARGV[5] == '1' then redis.call('HSET', KEYS[2], ARGV[2], (now + tonumber(ARGV[3])) .. ' ' .. ARGV[4]) end "
            + "local p = redis.call('HGET', KEYS[1], 'published') or '0' "
            + "if p == ARGV[1] then return {p} end return {p, redis.call('HGETALL', KEYS[1])}");
    /**
     * KEYS: readers. ARGV: reader, lifetime, held revisions (',' separated, '?' if reading), whether a
     * reading mark must still be there. Returns 0 if it must and is not.
     */
    private static final byte[] REGISTER = RedisKeys.bytes(NOW
            + "local cur = redis.call('HGET', KEYS[1], ARGV[1]) "
            + "if ARGV[4] == '1' and (not cur or not string.find(cur, '?', 1, true)) then return 0 end "
            + "if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) "
            + "else redis.call('HSET', KEYS[1], ARGV[1], (now + tonumber(ARGV[2])) .. ' ' .. ARGV[3]) end return 1");
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
    private final long lifetimeMillis;
    private final byte[] readerId;
    private Thread refresher;
    private volatile boolean closed;

    // Reader side: what the snapshots hold, and whether a meta was read and its revision not yet registered.
    private long[] holding = new long[0];
    private boolean reading;

    // Writer side: the last successful look (at first none, dated long ago).
    private SharedPages.Held lastLook = new SharedPages.Held(new long[0], true, System.nanoTime() - (1L << 62));

    ReaderRegistrations(UnifiedJedis redis, RedisKeys keys, String where, long lifetimeMillis) {
        this.redis = redis;
        this.keys = keys;
        this.where = where;
        this.lifetimeMillis = lifetimeMillis;
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
        try {
            List<?> reply = (List<?>) redis.eval(READ_META, List.of(keys.meta, keys.readers),
                    List.of(RedisKeys.bytes(knownPublications), readerId, RedisKeys.bytes(Long.toString(lifetimeMillis)),
                            RedisKeys.bytes(joined(holding, true)), RedisKeys.bytes(mark ? "1" : "0")));
            reading |= mark;
            return reply;
        } catch (JedisException e) {
            throw failure("read the meta hash " + RedisKeys.text(keys.meta), e);
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
        return send(marked);
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

    /** Sends what the snapshots hold (with the reading mark if {@link #reading}); false if {@code markExpected} and it lapsed. */
    private boolean send(boolean markExpected) {
        try {
            Object done = redis.eval(REGISTER, List.of(keys.readers), List.of(readerId,
                    RedisKeys.bytes(Long.toString(lifetimeMillis)), RedisKeys.bytes(joined(holding, reading)),
                    RedisKeys.bytes(markExpected ? "1" : "0")));
            return Long.valueOf(1).equals(done);
        } catch (JedisException e) {
            throw failure("register the snapshots of this reader in " + RedisKeys.text(keys.readers), e);
        }
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
                } catch (StorageException e) {
                    // Redis unreachable: the next refresh or snapshot tries again.
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
        return new StorageException("cannot " + what + " of store '" + keys.name + "' on " + where + ": "
                + e.getMessage(), e);
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
                send(false);
            } catch (StorageException e) {
                // It expires by itself.
            }
        }
    }
}
