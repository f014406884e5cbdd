package io.mvbt.bench.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.mvbt.pagestore.redis.RedisEndpoint;

/**
 * redis-server processes of the benchmark's own, on free loopback ports, keeping everything in
 * memory (no snapshots, no append-only file: the counterpart of a RAM disk): one server, or a
 * cluster of masters.
 */
public final class RedisServers implements AutoCloseable {
    private static final String SERVER = "/usr/bin/redis-server";
    private static final String CLI = "/usr/bin/redis-cli";

    private final List<Process> processes = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final boolean cluster;

    private RedisServers(boolean cluster) {
        this.cluster = cluster;
    }

    /** One server, its files in {@code dir}. */
    public static RedisServers single(Path dir) {
        RedisServers servers = new RedisServers(false);
        try {
            servers.start(dir, false);
            return servers;
        } catch (IOException e) {
            servers.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            servers.close();
            throw e;
        }
    }

    /** A cluster of {@code masters} masters, their slots shared among them. */
    public static RedisServers cluster(Path dir, int masters) throws IOException, InterruptedException {
        RedisServers servers = new RedisServers(true);
        try {
            List<String> create = new ArrayList<>(List.of(CLI, "--cluster", "create"));
            for (int i = 0; i < masters; i++) {
                create.add("127.0.0.1:" + servers.start(dir.resolve("node" + i), true));
            }
            create.add("--cluster-yes");
            run(create);
            for (int port : servers.ports) {
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (!run(List.of(CLI, "-p", Integer.toString(port), "cluster", "info")).contains("cluster_state:ok")) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("the Redis cluster did not come up");
                    }
                    Thread.sleep(50);
                }
            }
            return servers;
        } catch (IOException | InterruptedException | RuntimeException e) {
            servers.close();
            throw e;
        }
    }

    private int start(Path dir, boolean clusterNode) throws IOException {
        if (!Files.isExecutable(Path.of(SERVER))) {
            throw new IllegalStateException("needs Debian's redis-server (" + SERVER
                    + "): run .ci/install-redis, or leave the peer mvbt-redis out with --peers");
        }
        Files.createDirectories(dir);
        int port = freePortPair();
        ports.add(port);
        processes.add(new ProcessBuilder(SERVER, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir",
                dir.toString(), "--save", "", "--appendonly", "no", "--cluster-enabled", clusterNode ? "yes" : "no",
                "--cluster-config-file", "nodes.conf", "--protected-mode", "no", "--loglevel", "warning")
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start());
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!"+PONG".equals(command(port, "PING"))) {
            if (!processes.get(processes.size() - 1).isAlive() || System.nanoTime() > deadline) {
                throw new IOException("redis-server did not start: " + Files.readString(dir.resolve("redis.log")));
            }
            sleep(20);
        }
        return port;
    }

    /** The endpoint a store uses to reach these servers. */
    public RedisEndpoint endpoint() {
        if (!cluster) {
            return RedisEndpoint.single("127.0.0.1", ports.get(0));
        }
        List<String> seeds = new ArrayList<>();
        for (int port : ports) {
            seeds.add("127.0.0.1:" + port);
        }
        return RedisEndpoint.cluster(seeds);
    }

    /** Bytes of memory the servers use for data (INFO memory's used_memory_dataset, summed). */
    public long datasetBytes() {
        long total = 0;
        for (int port : ports) {
            String info = command(port, "INFO memory", "used_memory_dataset:");
            if (info == null) {
                throw new IllegalStateException("INFO memory of redis-server on port " + port + " lacks used_memory_dataset");
            }
            total += Long.parseLong(info.substring("used_memory_dataset:".length()).trim());
        }
        return total;
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The first line the server answers to {@code command}, or null if it cannot be reached. */
    private static String command(int port, String command) {
        return command(port, command, "");
    }

    /** The first line of the answer that starts with {@code prefix}, or null. */
    private static String command(int port, String command, String prefix) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.getOutputStream().write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            return null;
        } catch (IOException e) {
            return null;
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

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A port whose cluster bus port (port + 10000) is free as well. */
    private static int freePortPair() throws IOException {
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
}
