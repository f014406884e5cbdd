// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.util.List;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A client and which node serves a key through it: the one server, or the master a cluster's
 * slot map names (learned again after a failover with {@link #refresh}). A cluster pipeline sends
 * every command for one node on one connection, so knowing the node of each key is how a
 * {@code WAIT} is made to follow the writes it must cover.
 */
final class RedisNodes implements AutoCloseable {
    /** Makes {@code WAIT} commands routed by a key. */
    private static final CommandObjects COMMANDS = new CommandObjects(RedisProtocol.RESP2);

    final UnifiedJedis client;
    private final ClusterConnectionProvider cluster;
    private final HostAndPort single;

    private RedisNodes(UnifiedJedis client, ClusterConnectionProvider cluster, HostAndPort single) {
        this.client = client;
        this.cluster = cluster;
        this.single = single;
    }

    static RedisNodes single(UnifiedJedis client, HostAndPort node) {
        return new RedisNodes(client, null, node);
    }

    static RedisNodes cluster(UnifiedJedis client, ClusterConnectionProvider provider) {
        return new RedisNodes(client, provider, null);
    }

    /** The node serving {@code key} as far as this client knows (null if a cluster's slot has none now). */
    HostAndPort nodeOf(byte[] key) {
        return cluster == null ? single : cluster.getNode(JedisClusterCRC16.getSlot(key));
    }

    /**
     * Queues on {@code pipeline} a {@code WAIT} for {@code replicas} replicas of the node that
     * serves {@code key}, on the pipeline's connection to it: it covers what that connection sent
     * before (and only that). The reply is how many replicas acknowledged within the timeout.
     */
    static Response<Long> queueWait(AbstractPipeline pipeline, byte[] key, int replicas, long timeoutMillis) {
        return pipeline.executeCommand(COMMANDS.waitReplicas(key, replicas, timeoutMillis));
    }

    /**
     * Queues on {@code pipeline} a {@code ROLE} to the node that serves {@code key}: what it is,
     * and for a primary the replicas online ({@link #onlineReplicas}).
     */
    static Response<Object> queueRole(AbstractPipeline pipeline, byte[] key) {
        return pipeline.executeCommand(new CommandObject<>(new RoutedBy(Protocol.Command.ROLE, key), BuilderFactory.RAW_OBJECT));
    }

    /** How many replicas a {@code ROLE} reply lists (a primary lists those online; anything else, none). */
    static int onlineReplicas(Object role) {
        return role instanceof List<?> reply && reply.size() >= 3 && reply.get(2) instanceof List<?> replicas
                && reply.get(0) instanceof byte[] kind && RedisKeys.text(kind).equals("master") ? replicas.size() : 0;
    }

    /** A keyless command routed by a key's hash slot (as a cluster pipeline needs). */
    private static final class RoutedBy extends CommandArguments {
        RoutedBy(ProtocolCommand command, byte[] key) {
            super(command);
            addHashSlotKeys(key);
        }
    }

    /** Asks the cluster again which master serves which slot (a failover moved some); best effort. */
    void refresh() {
        if (cluster != null) {
            try {
                cluster.renewSlotCache();
            } catch (RuntimeException e) {
                // No node answered yet: the next attempt asks again.
            }
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
