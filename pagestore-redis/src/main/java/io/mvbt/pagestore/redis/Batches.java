// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Pipelined commands, sent in rounds of {@link #BATCH}; every reply is checked, and a failure
 * names the node of the key it was for. With replicas asked for, {@link #finish} sends a
 * {@code WAIT} to each node written to, on the pipeline's connection to it, and checks that
 * enough replicas hold what that connection wrote.
 */
final class Batches implements AutoCloseable {
    /** Commands per pipelined round trip. */
    static final int BATCH = 512;

    /** How a failure to {@code what} is reported; {@code key} is the command's (null: the round trip's). */
    interface Failures {
        RuntimeException failed(String what, byte[] key, RuntimeException e);
    }

    private final AbstractPipeline pipeline;
    /** The node serving a key, as the client knows it now. */
    private final Function<byte[], HostAndPort> nodeOf;
    private final String what;
    /** Names the store in messages: "store 'x' on ...". */
    private final String store;
    private final int replicas;
    private final long replicaTimeoutMillis;
    private final Failures failures;
    private final List<Response<?>> replies = new ArrayList<>();
    private final List<byte[]> replyKeys = new ArrayList<>();
    /** One key written on each node, by node, for its WAIT. */
    private final Map<HostAndPort, byte[]> written = new LinkedHashMap<>();
    /** A key whose node changed while its command was queued, or null. */
    private byte[] moved;

    Batches(AbstractPipeline pipeline, Function<byte[], HostAndPort> nodeOf, String what, String store, int replicas,
            long replicaTimeoutMillis, Failures failures) {
        this.pipeline = pipeline;
        this.nodeOf = nodeOf;
        this.what = what;
        this.store = store;
        this.replicas = replicas;
        this.replicaTimeoutMillis = replicaTimeoutMillis;
        this.failures = failures;
    }

    /**
     * Queues {@code command} for {@code key}. With replicas asked for, its node is noted for the
     * {@code WAIT}: looked up before the command is queued and again after, since a slot map learned
     * anew in between (a failover, by another thread) may have routed it to either. Should they
     * differ, the {@code WAIT} could miss it: {@link #finish} counts that as a node away.
     */
    <T> Response<T> queue(byte[] key, Function<AbstractPipeline, Response<T>> command) {
        HostAndPort before = replicas > 0 ? nodeOf.apply(key) : null;
        Response<T> reply = command.apply(pipeline);
        if (replicas > 0) {
            HostAndPort after = nodeOf.apply(key);
            if (before == null || !before.equals(after)) {
                moved = key;
            } else {
                written.putIfAbsent(before, key);
            }
        }
        replies.add(reply);
        replyKeys.add(key);
        if (replies.size() == BATCH) {
            flush();
        }
        return reply;
    }

    private void flush() {
        try {
            pipeline.sync();
        } catch (JedisException | IllegalStateException e) {
            throw failures.failed(what, null, e);
        }
        for (int i = 0; i < replies.size(); i++) {
            try {
                replies.get(i).get();
            } catch (JedisException | IllegalStateException e) {
                // A cluster pipeline leaves the replies of a node it lost unset (IllegalStateException).
                throw failures.failed(what, replyKeys.get(i), e);
            }
        }
        replies.clear();
        replyKeys.clear();
    }

    /**
     * Sends what is queued and, with replicas asked for, waits for them: a {@code WAIT} to each
     * node written to, routed by a key written there. Should the cluster's slot map have moved
     * such a key to another node meanwhile (a failover learned of by another thread), the
     * {@code WAIT} would miss the writes it must cover: that counts as a node away.
     */
    void finish() {
        if (moved != null) {
            throw new RedisUnavailableException("cannot " + what + " of " + store + ": the cluster moved the slot of a"
                    + " key while its command was queued", String.valueOf(nodeOf.apply(moved)), null);
        }
        List<Response<Long>> waits = new ArrayList<>();
        for (Map.Entry<HostAndPort, byte[]> node : written.entrySet()) {
            Response<Long> wait = RedisNodes.queueWait(pipeline, node.getValue(), replicas, replicaTimeoutMillis);
            HostAndPort now = nodeOf.apply(node.getValue());
            if (!node.getKey().equals(now)) {
                throw new RedisUnavailableException("cannot " + what + " of " + store + ": the cluster moved a slot from "
                        + node.getKey() + " to " + now + " while it was sent", String.valueOf(node.getKey()), null);
            }
            waits.add(wait);
            replies.add(wait);
            replyKeys.add(node.getValue());
        }
        flush();
        int i = 0;
        for (HostAndPort node : written.keySet()) {
            long held = waits.get(i++).get();
            if (held < replicas) {
                throw new RedisUnavailableException("cannot " + what + " of " + store + ": " + held + " of the " + replicas
                        + " replicas asked for acknowledged the writes to " + node + " within " + replicaTimeoutMillis
                        + " ms", String.valueOf(node), null);
            }
        }
    }

    /** Lets go of the pipeline's connections; after a failure, what was queued and not sent may still go out. */
    @Override
    public void close() {
        try {
            pipeline.close();
        } catch (RuntimeException e) {
            // A failure is on its way, or finish() checked every reply: closing loses nothing, and hides nothing.
        }
    }
}
