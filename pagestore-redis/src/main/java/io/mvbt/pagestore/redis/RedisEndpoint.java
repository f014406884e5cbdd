// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * Where pages live: one Redis server, or a Redis Cluster reached through any of its nodes, with
 * the credentials and the transport to use. {@link #parse} reads the URI forms Jedis, Lettuce and
 * redis-cli users write: {@code redis://[user[:password]@]host:port} and {@code rediss://...}
 * (TLS), and {@code cluster:redis://...,host:port,...} for a cluster (the listed nodes are only
 * seeds; the client learns the rest); plain {@code host:port} and {@code cluster:host:port,...}
 * too. An endpoint is immutable: {@link #withUser}, {@link #withPassword} and {@link #withTls}
 * return new ones. The password never appears in {@link #toString()} or in an exception.
 */
public final class RedisEndpoint {
    private final List<HostAndPort> nodes;
    private final boolean cluster;
    /** The ACL user, or null for the default user. */
    private final String user;
    /** The password, or null for none. */
    private final String password;
    private final boolean tls;
    /** The TLS context, or null for the JDK's default (its trust store). */
    private final SSLContext sslContext;
    /** The TLS parameters, or null for the context's defaults. */
    private final SSLParameters sslParameters;
    /** Whether the server must be named in its certificate (TLS). */
    private final boolean verifyHostname;

    private RedisEndpoint(List<HostAndPort> nodes, boolean cluster, String user, String password, boolean tls,
            SSLContext sslContext, SSLParameters sslParameters, boolean verifyHostname) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a Redis endpoint needs at least one host:port");
        }
        if (user != null && password == null) {
            throw new IllegalArgumentException("user '" + user + "' needs a password");
        }
        this.nodes = List.copyOf(nodes);
        this.cluster = cluster;
        this.user = user;
        this.password = password;
        this.tls = tls;
        this.sslContext = sslContext;
        this.sslParameters = sslParameters;
        this.verifyHostname = verifyHostname;
    }

    /** One Redis server. */
    public static RedisEndpoint single(String host, int port) {
        return new RedisEndpoint(List.of(new HostAndPort(Objects.requireNonNull(host), port)), false, null, null,
                false, null, null, true);
    }

    /** A Redis Cluster, reached through the given seed nodes ({@code host:port} each). */
    public static RedisEndpoint cluster(List<String> seeds) {
        List<HostAndPort> nodes = new ArrayList<>();
        for (String seed : seeds) {
            nodes.add(hostAndPort(seed));
        }
        return new RedisEndpoint(nodes, true, null, null, false, null, null, true);
    }

    /**
     * {@code redis://[user[:password]@]host:port}, {@code rediss://...} for TLS, either with more
     * {@code ,host:port} seeds after a {@code cluster:} prefix; or {@code host:port}, or
     * {@code cluster:host:port,host:port,...}. A user or password with reserved characters is
     * percent-encoded, as in any URI; a password alone ({@code redis://:password@host:port}) is
     * Redis's legacy {@code requirepass}.
     */
    public static RedisEndpoint parse(String text) {
        boolean cluster = text.startsWith("cluster:");
        String rest = cluster ? text.substring("cluster:".length()) : text;
        boolean tls = false;
        String user = null;
        String password = null;
        int scheme = rest.indexOf("://");
        if (scheme >= 0) {
            String name = rest.substring(0, scheme);
            if (!name.equals("redis") && !name.equals("rediss")) {
                throw new IllegalArgumentException("not a redis:// or rediss:// address: " + masked(text));
            }
            tls = name.equals("rediss");
            rest = rest.substring(scheme + 3);
            int at = rest.lastIndexOf('@');
            if (at >= 0) {
                String userInfo = rest.substring(0, at);
                rest = rest.substring(at + 1);
                int colon = userInfo.indexOf(':');
                String u = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), text);
                password = colon < 0 ? null : decode(userInfo.substring(colon + 1), text);
                if (password == null || password.isEmpty()) {
                    throw new IllegalArgumentException("a user without a password in " + masked(text));
                }
                if (password.equals("***")) {
                    throw new IllegalArgumentException("the password of " + masked(text) + " is the mask toString()"
                            + " prints; give the address with the password itself");
                }
                user = u.isEmpty() ? null : u;
            }
            int slash = rest.indexOf('/');
            if (slash >= 0) {
                String path = rest.substring(slash + 1);
                if (!path.isEmpty() && !path.equals("0")) {
                    throw new IllegalArgumentException("mvbt keeps its keys in database 0, not " + path + ": "
                            + masked(text));
                }
                rest = rest.substring(0, slash);
            }
        }
        if (rest.indexOf('@') >= 0) {
            throw new IllegalArgumentException("credentials need the redis:// or rediss:// form: " + masked(text));
        }
        List<HostAndPort> nodes = new ArrayList<>();
        for (String node : rest.split(",")) {
            nodes.add(hostAndPort(node));
        }
        if (!cluster && nodes.size() > 1) {
            throw new IllegalArgumentException("several hosts need the cluster: prefix: " + masked(text));
        }
        return new RedisEndpoint(nodes, cluster, user, password, tls, null, null, true);
    }

    private static String decode(String s, String text) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a malformed %-escape in the user or password of " + masked(text));
        }
    }

    /** {@code text} with anything before the last "@" (after a "://") replaced: for messages. */
    private static String masked(String text) {
        int at = text.lastIndexOf('@');
        if (at < 0) {
            return text;
        }
        int scheme = text.indexOf("://");
        return (scheme >= 0 && scheme < at ? text.substring(0, scheme + 3) : "") + "***" + text.substring(at);
    }

    private static HostAndPort hostAndPort(String text) {
        if (text.indexOf('@') >= 0) {
            throw new IllegalArgumentException("credentials need the redis:// or rediss:// form: " + masked(text));
        }
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

    /** This endpoint, signing in as ACL user {@code user} (Redis 6 and later). */
    public RedisEndpoint withUser(String user, String password) {
        return new RedisEndpoint(nodes, cluster, Objects.requireNonNull(user), Objects.requireNonNull(password), tls,
                sslContext, sslParameters, verifyHostname);
    }

    /** This endpoint, signing in with the legacy {@code requirepass} password (the default user's). */
    public RedisEndpoint withPassword(String password) {
        return new RedisEndpoint(nodes, cluster, null, Objects.requireNonNull(password), tls, sslContext,
                sslParameters, verifyHostname);
    }

    /** This endpoint over TLS, trusting the JDK's trust store, with hostname verification. */
    public RedisEndpoint withTls() {
        return new RedisEndpoint(nodes, cluster, user, password, true, sslContext, sslParameters, verifyHostname);
    }

    /**
     * This endpoint over TLS with {@code context} (its trust and, for client certificates, its
     * keys) and {@code parameters} (protocols, cipher suites; null: the context's defaults). The
     * server must be named in its certificate whatever the parameters say, unless
     * {@link #withoutHostnameVerification()}.
     */
    public RedisEndpoint withTls(SSLContext context, SSLParameters parameters) {
        return new RedisEndpoint(nodes, cluster, user, password, true, Objects.requireNonNull(context), parameters,
                verifyHostname);
    }

    /**
     * This endpoint without checking that the server is named in its certificate (it must still be
     * signed by a trusted authority). For servers reached by addresses their certificates do not
     * name; prefer certificates that name them.
     */
    public RedisEndpoint withoutHostnameVerification() {
        return new RedisEndpoint(nodes, cluster, user, password, tls, sslContext, sslParameters, false);
    }

    /** Whether this is a cluster. */
    public boolean isCluster() {
        return cluster;
    }

    /** Whether the connection is encrypted (TLS). */
    public boolean isTls() {
        return tls;
    }

    /** The ACL user signed in as, or null for the default user. */
    public String user() {
        return user;
    }

    /** The password, for tests of parsing (never in messages). */
    String password() {
        return password;
    }

    /**
     * A client; every command gives up after {@code timeout} without an answer. TLS is set with
     * the builder's socket factory and parameters, deprecated in Jedis 7 for {@code SslOptions},
     * which builds its own context from key and trust store files and cannot take the caller's.
     */
    @SuppressWarnings("deprecation")
    RedisNodes connect(Duration timeout) {
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis).socketTimeoutMillis(millis).clientName("mvbt");
        if (password != null) {
            config.user(user).password(password);
        }
        if (tls) {
            SSLParameters parameters = copy(sslParameters != null ? sslParameters
                    : sslContext != null ? sslContext.getDefaultSSLParameters() : new SSLParameters());
            parameters.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
            config.ssl(true).sslParameters(parameters);
            if (sslContext != null) {
                config.sslSocketFactory(sslContext.getSocketFactory());
            }
        }
        JedisClientConfig built = config.build();
        if (cluster) {
            ClusterConnectionProvider provider = new ClusterConnectionProvider(new LinkedHashSet<>(nodes), built);
            try {
                // Two tries: one redirection (MOVED, ASK) is followed. With three or more, Jedis sleeps
                // after the second failed connection for what is left of the retry time (seconds, in a
                // failover); FailoverWait retries every 200 ms instead, learning the slot map anew.
                return RedisNodes.cluster(RedisClusterClient.builder().nodes(new LinkedHashSet<>(nodes))
                        .connectionProvider(provider).clientConfig(built)
                        .maxAttempts(2).maxTotalRetriesDuration(timeout.multipliedBy(2)).build(), provider);
            } catch (RuntimeException e) {
                provider.close();
                throw e;
            }
        }
        return RedisNodes.single(RedisClient.builder().hostAndPort(nodes.get(0)).clientConfig(built).build(), nodes.get(0));
    }

    /**
     * A copy of {@code p} with every property that has a getter and a setter, those of later JDKs
     * (signature schemes, named groups) included, so that connect() can set the hostname check
     * without changing the caller's object or dropping what it set.
     */
    static SSLParameters copy(SSLParameters p) {
        SSLParameters c = new SSLParameters();
        try {
            for (java.lang.reflect.Method get : SSLParameters.class.getMethods()) {
                String name = get.getName();
                if (get.getParameterCount() != 0 || !name.startsWith("get") || get.getDeclaringClass() == Object.class
                        || name.endsWith("ClientAuth")) {
                    continue;
                }
                java.lang.reflect.Method set;
                try {
                    set = SSLParameters.class.getMethod("set" + name.substring(3), get.getReturnType());
                } catch (NoSuchMethodException e) {
                    continue;
                }
                set.invoke(c, get.invoke(p));
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy the TLS parameters: " + e, e);
        }
        // Setting either of the two clears the other: the one that is set goes last.
        if (p.getNeedClientAuth()) {
            c.setNeedClientAuth(true);
        } else {
            c.setWantClientAuth(p.getWantClientAuth());
        }
        return c;
    }

    /** The address in {@link #parse}'s form, with the password left out. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(cluster ? "cluster:" : "");
        if (tls || password != null) {
            text.append(tls ? "rediss://" : "redis://");
            if (password != null) {
                text.append(user == null ? "" : user).append(":***@");
            }
        }
        for (int i = 0; i < nodes.size(); i++) {
            text.append(i == 0 ? "" : ",").append(nodes.get(i).getHost()).append(':').append(nodes.get(i).getPort());
        }
        return text.toString();
    }
}
