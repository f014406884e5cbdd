package io.mvbt.bench.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.mvbt.pagestore.redis.RedisEndpoint;

/** A Redis Cluster of the benchmark's own on loopback: masters only, in memory. */
final class RedisCluster implements AutoCloseable {
    private static final String SERVER = "/usr/bin/redis-server";
    private static final String CLI = "/usr/bin/redis-cli";

    private final List<Process> processes = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();

    static RedisCluster start(Path dir, int masters) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(SERVER))) {
            throw new IllegalStateException("needs Debian's redis-server (" + SERVER + "): run .ci/install-redis");
        }
        RedisCluster cluster = new RedisCluster();
        try {
            List<String> create = new ArrayList<>(List.of(CLI, "--cluster", "create"));
            for (int i = 0; i < masters; i++) {
                Path node = dir.resolve("node" + i);
                Files.createDirectories(node);
                int port = freePortPair();
                cluster.ports.add(port);
                cluster.processes.add(new ProcessBuilder(SERVER, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                        "--dir", node.toString(), "--save", "", "--appendonly", "no", "--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf", "--protected-mode", "no", "--loglevel", "warning")
                        .redirectErrorStream(true).redirectOutput(node.resolve("redis.log").toFile()).start());
                awaitPing(port);
                create.add("127.0.0.1:" + port);
            }
            create.add("--cluster-yes");
            run(create);
            for (int port : cluster.ports) {
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (!run(List.of(CLI, "-p", Integer.toString(port), "cluster", "info")).contains("cluster_state:ok")) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("the Redis cluster did not come up");
                    }
                    Thread.sleep(50);
                }
            }
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    RedisEndpoint endpoint() {
        List<String> seeds = new ArrayList<>();
        for (int port : ports) {
            seeds.add("127.0.0.1:" + port);
        }
        return RedisEndpoint.cluster(seeds);
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
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

    private static void awaitPing(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
                        .readLine();
                if ("+PONG".equals(line)) {
                    return;
                }
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("redis-server on port " + port + " did not start", e);
                }
            }
            Thread.sleep(20);
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
