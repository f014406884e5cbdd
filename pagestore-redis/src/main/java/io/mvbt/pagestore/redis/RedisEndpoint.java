// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where pages live: one Redis server, or a Redis Cluster reached through any of its nodes.
 * {@link #parse} reads {@code host:port} for one server and {@code cluster:host:port,host:port,...}
 * for a cluster (the listed nodes are only seeds; the client learns the rest).
 */
public final class RedisEndpoint {
    private final List<HostAndPort> nodes;
    private final boolean cluster;

    private RedisEndpoint(List<HostAndPort> nodes, boolean cluster) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a Redis endpoint needs at least one host:port");
        }
        this.nodes = List.copyOf(nodes);
        this.cluster = cluster;
    }

    /** One Redis server. */
    public static RedisEndpoint single(String host, int port) {
        return new RedisEndpoint(List.of(new HostAndPort(Objects.requireNonNull(host), port)), false);
    }

    /** A Redis Cluster, reached through the given seed nodes ({@code host:port} each). */
    public static RedisEndpoint cluster(List<String> seeds) {
        List<HostAndPort> nodes = new ArrayList<>();
        for (String seed : seeds) {
            nodes.add(hostAndPort(seed));
        }
        return new RedisEndpoint(nodes, true);
    }

    /** {@code host:port}, or {@code cluster:host:port,host:port,...}. */
    public static RedisEndpoint parse(String text) {
        if (text.startsWith("cluster:")) {
            return cluster(List.of(text.substring("cluster:".length()).split(",")));
        }
        HostAndPort node = hostAndPort(text);
        return single(node.getHost(), node.getPort());
    }

    private static HostAndPort hostAndPort(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("not host:port: '" + text + "'");
        }
        try {
            return new HostAndPort(text.substring(0, colon).trim(), Integer.parseInt(text.substring(colon + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not host:port: '" + text + "'", e);
        }
    }

    /** Whether this is a cluster. */
    public boolean isCluster() {
        return cluster;
    }

    /** A client; every command gives up after {@code timeout} without an answer. */
    UnifiedJedis connect(Duration timeout) {
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis).socketTimeoutMillis(millis).clientName("mvbt").build();
        if (cluster) {
            return RedisClusterClient.builder().nodes(new LinkedHashSet<>(nodes)).clientConfig(config)
                    .maxAttempts(3).maxTotalRetriesDuration(timeout.multipliedBy(2)).build();
        }
        return RedisClient.builder().hostAndPort(nodes.get(0)).clientConfig(config).build();
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(cluster ? "cluster:" : "");
        for (int i = 0; i < nodes.size(); i++) {
            text.append(i == 0 ? "" : ",").append(nodes.get(i).getHost()).append(':').append(nodes.get(i).getPort());
        }
        return text.toString();
    }
}
