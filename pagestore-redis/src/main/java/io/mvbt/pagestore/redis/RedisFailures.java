// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import io.mvbt.StorageException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/** What a failed Redis command means for a store, as the exception its caller throws. */
final class RedisFailures {
    /** Error codes of a Redis that cannot serve now but may soon. */
    private static final List<String> TRANSIENT_CODES = List.of("CLUSTERDOWN", "TRYAGAIN", "LOADING", "READONLY",
            "MASTERDOWN", "NOREPLICAS", "MOVED", "ASK");

    private RedisFailures() {
    }

    /**
     * {@code e}, met while trying to {@code what} for store {@code store} on {@code where}: a
     * {@link RedisAccessException} if Redis refused the user, else a {@link StorageException}.
     */
    static StorageException of(String what, String store, String where, RuntimeException e) {
        return of(what, store, where, null, e);
    }

    /**
     * As {@link #of(String, String, String, RuntimeException)}, with the node that failed if
     * known: a {@link RedisUnavailableException} if the node did not answer or cannot serve now
     * (a failover under way), which a caller may retry.
     */
    static StorageException of(String what, String store, String where, String node, RuntimeException e) {
        String reason = accessRefusal(e);
        if (reason != null) {
            return new RedisAccessException("Redis at " + where + " refused to let store '" + store + "' " + what
                    + ": " + reason, e);
        }
        String text = "cannot " + what + " of store '" + store + "' on " + where
                + (node == null ? "" : " (node " + node + ")") + ": " + reasons(e);
        return unavailable(e) ? new RedisUnavailableException(text, node, e) : new StorageException(text, e);
    }

    /**
     * Whether {@code e} says a node is away or cannot serve for now: no connection, no answer in
     * time, the cluster down or redirecting a slot, a replica not yet promoted (READONLY), a node
     * loading its data, or a cluster pipeline's reply left unset by a node it lost.
     */
    static boolean unavailable(Throwable e) {
        for (Throwable t : related(e)) {
            String m = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof JedisConnectionException || t instanceof JedisClusterOperationException
                    || t instanceof JedisRedirectionException || t instanceof RedisUnavailableException
                    || t instanceof IllegalStateException && m.contains("close pipeline")) {
                return true;
            }
            if (m.contains("WAIT cannot be used with replica")) {
                return true; // a master just demoted: the slot map is behind
            }
            for (String code : TRANSIENT_CODES) {
                if (m.startsWith(code)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The message of {@code e}, then the others of its causes and suppressed exceptions (a cluster client's first attempts). */
    private static String reasons(Throwable e) {
        StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable t : related(e)) {
            if (text.length() >= 600) {
                break;
            }
            if (t != e && t.getMessage() != null && text.indexOf(t.getMessage()) < 0) {
                text.append("; ").append(t.getMessage());
            }
        }
        return text.toString();
    }

    /**
     * Redis's reason if {@code e}, a cause or a suppressed exception (a cluster client keeps its
     * attempts there) is a refusal of the user, else null.
     */
    static String accessRefusal(Throwable e) {
        for (Throwable t : related(e)) {
            String m = t.getMessage();
            if (t instanceof JedisAccessControlException) {
                return m;
            }
            if (m != null && (m.startsWith("NOPERM") || m.startsWith("WRONGPASS") || m.startsWith("NOAUTH")
                    || m.contains("ACL failure") || m.contains("can't access at least one of the keys"))) {
                return m;
            }
        }
        return null;
    }

    /** {@code e}, then its causes and suppressed exceptions and theirs, each once, nearest first. */
    private static List<Throwable> related(Throwable e) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> found = new ArrayList<>();
        ArrayDeque<Throwable> more = new ArrayDeque<>();
        more.add(e);
        while (!more.isEmpty()) {
            Throwable t = more.poll();
            if (!seen.add(t)) {
                continue;
            }
            found.add(t);
            if (t.getCause() != null) {
                more.add(t.getCause());
            }
            more.addAll(List.of(t.getSuppressed()));
        }
        return found;
    }
}
