// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.bench.Machine;
import io.mvbt.bench.StoreLoader;
import io.mvbt.bench.Workload;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.testkit.RedisServers;

/**
 * Read throughput of reader processes on a store on a Redis Cluster: a writer loads the store,
 * then 1, 2 and 4 reader JVMs each read random keys, first with an empty page cache (every page
 * from Redis once: the cold pass reads each key once, in random order) and then warm, for a fixed
 * time. Every read is verified. {@code mvbt-bench.jar redis-readers [--entries N] [--seconds S]}.
 */
public final class ReaderScaleOut {
    private static final String TREE = "bench";

    private ReaderScaleOut() {
    }

    public static int main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args);
            return 0;
        }
        long entries = 200_000;
        double seconds = 5;
        int[] counts = {1, 2, 4};
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--entries" -> entries = Long.parseLong(args[i + 1].replace("_", ""));
                case "--seconds" -> seconds = Double.parseDouble(args[i + 1]);
                default -> {
                    System.err.println("usage: redis-readers [--entries N] [--seconds S]");
                    return 2;
                }
            }
        }
        Path dir = Files.createTempDirectory("mvbt-redis-readers");
        try (RedisServers cluster = RedisServers.cluster(dir, 3, false)) {
            RedisEndpoint endpoint = RedisEndpoint.parse(cluster.address());
            load(endpoint, entries);
            System.out.println("# Readers on a 3-master Redis Cluster (loopback), " + entries + " entries");
            System.out.println();
            System.out.println("Machine: " + Machine.describe());
            System.out.println();
            System.out.println("| readers | cold reads/s (all) | warm reads/s (all) | warm per reader | warm vs 1 reader |");
            System.out.println("|---:|---:|---:|---:|---:|");
            double warmOne = 0;
            for (int n : counts) {
                List<Process> children = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    children.add(start(endpoint, entries, seconds, i));
                }
                double cold = 0;
                double warm = 0;
                for (Process child : children) {
                    String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                            .readLine();
                    if (child.waitFor() != 0 || line == null || !line.startsWith("rates ")) {
                        System.err.println("a reader failed: " + line);
                        return 1;
                    }
                    String[] w = line.split(" ");
                    cold += Double.parseDouble(w[1]);
                    warm += Double.parseDouble(w[2]);
                }
                if (n == 1) {
                    warmOne = warm;
                }
                System.out.printf("| %d | %,.0f | %,.0f | %,.0f | %.2fx |%n", n, cold, warm, warm / n, warm / warmOne);
            }
        }
        return 0;
    }

    private static void load(RedisEndpoint endpoint, long entries) {
        try (Store store = Store.open(RedisPageStore.open(endpoint, "scaleout", RedisStoreOptions.defaults()),
                StoreOptions.defaults())) {
            StoreLoader.load(store, TREE, entries);
        }
    }

    private static Process start(RedisEndpoint endpoint, long entries, double seconds, int seed) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java,
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), "io.mvbt.bench.BenchMain", "redis-readers",
                "--child", endpoint.toString(), Long.toString(entries), Double.toString(seconds), Integer.toString(seed)));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** A reader: a cold pass over every key in random order, then random reads for the given seconds. */
    private static void child(String[] args) {
        RedisEndpoint endpoint = RedisEndpoint.parse(args[1]);
        long entries = Long.parseLong(args[2]);
        double seconds = Double.parseDouble(args[3]);
        Workload w = new Workload();
        byte[] key = new byte[Workload.KEY_SIZE];
        UnsafeBuffer keyView = new UnsafeBuffer(key);
        byte[] expected = new byte[Workload.VALUE_SIZE];
        UnsafeBuffer out = new UnsafeBuffer(new byte[0]);
        try (Store store = Store.open(RedisPageStore.openReader(endpoint, "scaleout", RedisStoreOptions.defaults()),
                StoreOptions.defaults()); Snapshot s = store.beginRead()) {
            Tree t = store.tree(TREE);
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 100 + Integer.parseInt(args[4]));
            long start = System.nanoTime();
            for (long j = 0; j < entries; j++) {
                check(s, t, w, rng.nextLong(entries), key, keyView, expected, out);
            }
            double cold = entries / ((System.nanoTime() - start) / 1e9);
            long reads = 0;
            long end = System.nanoTime() + (long) (seconds * 1e9);
            start = System.nanoTime();
            while (System.nanoTime() < end) {
                for (int k = 0; k < 1000; k++) {
                    check(s, t, w, rng.nextLong(entries), key, keyView, expected, out);
                }
                reads += 1000;
            }
            double warm = reads / ((System.nanoTime() - start) / 1e9);
            System.out.println("rates " + cold + " " + warm);
        }
    }

    private static void check(Snapshot s, Tree t, Workload w, long i, byte[] key, UnsafeBuffer keyView, byte[] expected,
            UnsafeBuffer out) {
        Workload.presentKey(i, key);
        w.value(i, 0, expected);
        if (!s.get(t, keyView, out) || out.capacity() != expected.length || !equal(out, expected)) {
            throw new IllegalStateException("key " + i + " misread");
        }
    }

    private static boolean equal(UnsafeBuffer a, byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (a.getByte(i) != b[i]) {
                return false;
            }
        }
        return true;
    }
}
