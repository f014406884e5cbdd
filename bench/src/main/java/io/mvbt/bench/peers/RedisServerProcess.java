package io.mvbt.bench.peers;

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
import java.util.List;

/**
 * A redis-server of the benchmark's own, on a free loopback port, keeping everything in memory
 * (no snapshots, no append-only file): the counterpart of a RAM disk.
 */
final class RedisServerProcess implements AutoCloseable {
    private static final String SERVER = "/usr/bin/redis-server";

    private final Process process;
    final int port;

    private RedisServerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static RedisServerProcess start(Path dir) {
        if (!Files.isExecutable(Path.of(SERVER))) {
            throw new IllegalStateException("the mvbt-redis peer needs Debian's redis-server (" + SERVER
                    + "): run .ci/install-redis, or leave the peer out with --peers");
        }
        try {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Process p = new ProcessBuilder(List.of(SERVER, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--protected-mode", "no",
                    "--loglevel", "warning")).redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile())
                    .start();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (!"+PONG".equals(command(port, "PING"))) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    throw new IllegalStateException("redis-server did not start: " + Files.readString(dir.resolve("redis.log")));
                }
                Thread.sleep(20);
            }
            return new RedisServerProcess(p, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Bytes of memory Redis uses for data (INFO memory's used_memory_dataset). */
    long datasetBytes() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.getOutputStream().write("INFO memory\r\n".getBytes(StandardCharsets.US_ASCII));
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("used_memory_dataset:")) {
                    return Long.parseLong(line.substring("used_memory_dataset:".length()).trim());
                }
            }
            throw new IllegalStateException("INFO memory of redis-server on port " + port + " lacks used_memory_dataset");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String command(int port, String command) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            OutputStream out = s.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
