// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Real Redis servers on loopback: one server, or a cluster of several masters (with replicas or
 * without), each from its own directory on ports nobody else uses. Persisted (append-only file, written back by the OS) so that
 * tests can kill and restart a node, or in memory only (no snapshots, no append-only file: the
 * counterpart of a RAM disk) for benchmarks. Debian's redis-server is installed by
 * {@code .ci/install-redis} where it is missing.
 */
public final class RedisServers implements AutoCloseable {
    private static final String SERVER = "/usr/bin/redis-server";
    private static final String CLI = "/usr/bin/redis-cli";

    /**
     * How servers are started beyond the defaults: more redis-server arguments (an ACL file, a
     * password, TLS files), the arguments redis-cli needs to reach them, and whether they speak
     * only TLS (on the node's port).
     */
    public record Setup(List<String> serverArgs, List<String> cliArgs, boolean tls) {
        public static final Setup PLAIN = new Setup(List.of(), List.of(), false);

        public Setup {
            serverArgs = List.copyOf(serverArgs);
            cliArgs = List.copyOf(cliArgs);
        }
    }

    /** One redis-server process. */
    public static final class Node {
        final Path dir;
        final int port;
        private final boolean persisted;
        private final Setup setup;
        private Process process;

        Node(Path dir, int port, boolean persisted, Setup setup) {
            this.dir = dir;
            this.port = port;
            this.persisted = persisted;
            this.setup = setup;
        }

        public int port() {
            return port;
        }

        /** Whether the server process runs. */
        public boolean alive() {
            return process != null && process.isAlive();
        }

        /** Kills the server at once, as a crash would. */
        public void kill() throws InterruptedException {
            process.destroyForcibly().waitFor();
        }

        /** Stops the server's process without ending it (SIGSTOP): a node that hangs. */
        public void pause() throws IOException, InterruptedException {
            signal("-STOP");
        }

        /** Lets a paused server go on (SIGCONT). */
        public void resume() throws IOException, InterruptedException {
            signal("-CONT");
        }

        private void signal(String signal) throws IOException, InterruptedException {
            run(List.of("kill", signal, Long.toString(process.pid())));
        }

        /** Starts the server again on the same port, from what it persisted. */
        public void restart() throws IOException, InterruptedException {
            start(false);
        }

        void start(boolean cluster) throws IOException, InterruptedException {
            start(cluster || Files.exists(dir.resolve("nodes.conf")) ? "yes" : "no");
        }

        private void start(String cluster) throws IOException, InterruptedException {
            List<String> ports = setup.tls() ? List.of("--port", "0", "--tls-port", Integer.toString(port))
                    : List.of("--port", Integer.toString(port));
            List<String> command = new ArrayList<>(List.of(SERVER));
            command.addAll(ports);
            command.addAll(List.of("--bind", "127.0.0.1",
                    "--dir", dir.toString(), "--save", "", "--appendonly", persisted ? "yes" : "no", "--appendfsync", "no",
                    "--protected-mode", "no", "--daemonize", "no", "--cluster-enabled", cluster,
                    "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000", "--loglevel", "warning"));
            command.addAll(setup.serverArgs());
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile()).start();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (!(setup.tls() ? pingTls(port) : ping(port))) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("redis-server on port " + port + " did not start: "
                            + Files.readString(dir.resolve("redis.log")));
                }
                Thread.sleep(20);
            }
        }
    }

    private final List<Node> nodes = new ArrayList<>();
    private final boolean persisted;
    private final boolean cluster;
    private final Setup setup;

    private RedisServers(boolean cluster, boolean persisted, Setup setup) {
        this.cluster = cluster;
        this.persisted = persisted;
        this.setup = setup;
    }

    /** One Redis server, persisted. */
    public static RedisServers single(Path dir) throws IOException, InterruptedException {
        return single(dir, true);
    }

    /** One Redis server, persisted or in memory only. */
    public static RedisServers single(Path dir, boolean persisted) throws IOException, InterruptedException {
        return single(dir, persisted, Setup.PLAIN);
    }

    /** One Redis server started as {@code setup} says. */
    public static RedisServers single(Path dir, boolean persisted, Setup setup) throws IOException, InterruptedException {
        RedisServers servers = new RedisServers(false, persisted, setup);
        try {
            servers.add(dir, false);
            return servers;
        } catch (IOException | InterruptedException | RuntimeException e) {
            servers.close();
            throw e;
        }
    }

    /** A persisted cluster of {@code masters} masters (no replicas), its slots shared among them. */
    public static RedisServers cluster(Path dir, int masters) throws IOException, InterruptedException {
        return cluster(dir, masters, true);
    }

    /** A cluster of {@code masters} masters (no replicas), persisted or in memory only. */
    public static RedisServers cluster(Path dir, int masters, boolean persisted)
            throws IOException, InterruptedException {
        return cluster(dir, masters, persisted, Setup.PLAIN);
    }

    /** A cluster of {@code masters} masters (no replicas) started as {@code setup} says. */
    public static RedisServers cluster(Path dir, int masters, boolean persisted, Setup setup)
            throws IOException, InterruptedException {
        return cluster(dir, masters, 0, persisted, setup);
    }

    /**
     * A cluster of {@code masters} masters with {@code replicas} replicas each, started as
     * {@code setup} says; it returns once every replica has copied its master.
     */
    public static RedisServers cluster(Path dir, int masters, int replicas, boolean persisted, Setup setup)
            throws IOException, InterruptedException {
        RedisServers servers = new RedisServers(true, persisted, setup);
        try {
            List<String> command = new ArrayList<>(List.of(CLI));
            command.addAll(setup.cliArgs());
            command.addAll(List.of("--cluster", "create"));
            for (int i = 0; i < masters * (1 + replicas); i++) {
                Node node = servers.add(dir.resolve("node" + i), true);
                command.add("127.0.0.1:" + node.port);
            }
            command.addAll(List.of("--cluster-replicas", Integer.toString(replicas), "--cluster-yes"));
            run(command);
            for (Node node : servers.nodes) {
                servers.awaitClusterOk(node);
            }
            servers.awaitReplicasInSync();
            return servers;
        } catch (IOException | InterruptedException | RuntimeException e) {
            servers.close();
            throw e;
        }
    }

    private Node add(Path dir, boolean clusterNode) throws IOException, InterruptedException {
        ensureInstalled();
        Files.createDirectories(dir);
        Node node = new Node(dir, freePort(), persisted, setup);
        nodes.add(node);
        node.start(clusterNode);
        return node;
    }

    /** Waits until the node says the cluster is up (every slot served). */
    public void awaitClusterOk(Node node) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!run(cli(node, "cluster", "info")).contains("cluster_state:ok")) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the Redis cluster did not come up at port " + node.port);
            }
            Thread.sleep(50);
        }
    }

    public List<Node> nodes() {
        return nodes;
    }

    /** Waits until every running replica's link to its master is up (it has copied the master). */
    public void awaitReplicasInSync() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        for (Node node : nodes) {
            while (node.alive()) {
                String info = run(cli(node, "info", "replication"));
                if (info.contains("role:master") || info.contains("master_link_status:up")) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("the replica at port " + node.port + " did not copy its master: " + info);
                }
                Thread.sleep(50);
            }
        }
    }

    /** The running node that serves {@code key}'s hash slot as master now. */
    public Node primaryOf(String key) throws IOException, InterruptedException {
        Node asked = live();
        int slot = Integer.parseInt(run(cli(asked, "cluster", "keyslot", key)).trim());
        for (String line : run(cli(asked, "cluster", "nodes")).lines().toList()) {
            String[] f = line.split(" ");
            if (f.length < 9 || !f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                String[] range = f[i].split("-");
                if (range[0].startsWith("[")) {
                    continue; // a slot being migrated
                }
                int first = Integer.parseInt(range[0]);
                int last = range.length > 1 ? Integer.parseInt(range[1]) : first;
                if (slot >= first && slot <= last) {
                    int port = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
                    return nodes.stream().filter(n -> n.port == port).findFirst().orElseThrow();
                }
            }
        }
        throw new IOException("no master serves slot " + slot + " of key " + key);
    }

    /** The nodes that replicate {@code primary} now. */
    public List<Node> replicasOf(Node primary) throws IOException, InterruptedException {
        List<String> lines = run(cli(live(), "cluster", "nodes")).lines().toList();
        String id = null;
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f[1].startsWith("127.0.0.1:" + primary.port + "@")) {
                id = f[0];
            }
        }
        List<Node> replicas = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f[2].contains("slave") && f[3].equals(id)) {
                int port = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
                nodes.stream().filter(n -> n.port == port).forEach(replicas::add);
            }
        }
        return replicas;
    }

    /** Waits until a running node serves {@code key}'s slot as master and every running node says the cluster is ok. */
    public Node awaitPrimaryOf(String key) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            Node primary = primaryOf(key);
            if (primary.alive() && nodes.stream().filter(Node::alive).allMatch(this::clusterOk)) {
                return primary;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("no running master took over the slot of " + key);
            }
            Thread.sleep(50);
        }
    }

    /**
     * Waits until the cluster has moved every slot of {@code dead} (a master that was killed) to a
     * replica of it, and every running node says the cluster is ok.
     */
    public void awaitFailoverOf(Node dead) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!(servesNoSlot(dead) && nodes.stream().filter(Node::alive).allMatch(this::clusterOk))) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no replica took over the slots of the node at port " + dead.port);
            }
            Thread.sleep(50);
        }
    }

    /** Whether every running node's view has no slot on {@code node}. */
    private boolean servesNoSlot(Node node) throws IOException, InterruptedException {
        for (Node asked : nodes) {
            if (!asked.alive()) {
                continue;
            }
            for (String line : run(cli(asked, "cluster", "nodes")).lines().toList()) {
                String[] f = line.split(" ");
                if (f.length > 8 && f[1].startsWith("127.0.0.1:" + node.port + "@")) {
                    return false;
                }
            }
        }
        return true;
    }

    private boolean clusterOk(Node node) {
        try {
            return run(cli(node, "cluster", "info")).contains("cluster_state:ok");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Node live() throws IOException {
        return nodes.stream().filter(Node::alive).findFirst().orElseThrow(() -> new IOException("no Redis node runs"));
    }

    /** Where a store reaches these servers: {@code host:port}, or {@code cluster:host:port,...} (RedisEndpoint.parse). */
    public String address() {
        List<String> seeds = new ArrayList<>();
        for (Node node : nodes) {
            seeds.add("127.0.0.1:" + node.port);
        }
        return (cluster ? "cluster:" : "") + String.join(",", seeds);
    }

    /** Bytes of memory the servers use for data (INFO memory's used_memory_dataset, summed). */
    public long datasetBytes() {
        long total = 0;
        for (Node node : nodes) {
            String info;
            try {
                info = run(cli(node, "info", "memory"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            String line = info.lines().filter(l -> l.startsWith("used_memory_dataset:")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("INFO memory of redis-server on port " + node.port
                            + " lacks used_memory_dataset"));
            total += Long.parseLong(line.substring("used_memory_dataset:".length()).trim());
        }
        return total;
    }

    /** Runs redis-cli against the first running node (with -c in a cluster) and returns what it printed. */
    public String cli(String... args) throws IOException, InterruptedException {
        List<String> command = cli(live());
        if (cluster) {
            command.add("-c");
        }
        command.addAll(List.of(args));
        return run(command);
    }

    /** Keys matching {@code pattern} on every node. */
    public long countKeys(String pattern) throws IOException, InterruptedException {
        long count = 0;
        for (Node node : nodes) {
            if (!node.alive() || run(cli(node, "info", "replication")).contains("role:slave")) {
                continue; // a replica's keys are its master's
            }
            String out = run(cli(node, "--scan", "--pattern", pattern));
            count += out.lines().filter(l -> !l.isBlank()).count();
        }
        return count;
    }

    /** A redis-cli command line for {@code node}, with the setup's arguments, then {@code args}. */
    private List<String> cli(Node node, String... args) {
        List<String> command = new ArrayList<>(List.of(CLI, "-p", Integer.toString(node.port)));
        command.addAll(setup.cliArgs());
        command.addAll(List.of(args));
        return command;
    }

    @Override
    public void close() {
        for (Node node : nodes) {
            if (node.process != null) {
                node.process.destroyForcibly();
            }
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    private static boolean ping(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return answered(s);
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the server answered PING: with PONG, or by asking who is there (it is up either way). */
    private static boolean answered(Socket s) throws IOException {
        String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        return line != null && (line.equals("+PONG") || line.startsWith("-NOAUTH"));
    }

    /** PING over TLS, trusting any certificate: only whether the server is up (a TLS refusal says it is). */
    private static boolean pingTls(int port) {
        try {
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
                @Override
                public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String type) {
                }

                @Override
                public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String type) {
                }

                @Override
                public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                    return new java.security.cert.X509Certificate[0];
                }
            }}, null);
            try (Socket s = context.getSocketFactory().createSocket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                s.setSoTimeout(1000);
                OutputStream out = s.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return answered(s);
            }
        } catch (javax.net.ssl.SSLException e) {
            return true; // it speaks TLS, and wants a client certificate this check does not show
        } catch (IOException | java.security.GeneralSecurityException e) {
            return false;
        }
    }

    /** A port whose cluster bus port (port + 10000) is free as well. */
    private static int freePort() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            if (port + 10000 > 65535) {
                continue;
            }
            try (ServerSocket bus = new ServerSocket(port + 10000)) {
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free port pair for a Redis node");
    }

    private static synchronized void ensureInstalled() throws IOException, InterruptedException {
        if (Files.isExecutable(Path.of(SERVER)) && Files.isExecutable(Path.of(CLI))) {
            return;
        }
        Path script = Path.of("..", ".ci", "install-redis").toAbsolutePath().normalize();
        Process p = new ProcessBuilder("sh", script.toString()).inheritIO().start();
        if (p.waitFor() != 0 || !Files.isExecutable(Path.of(SERVER))) {
            throw new IOException("redis-server is not installed and " + script + " could not install it;"
                    + " install Debian's redis-server package");
        }
    }
}
