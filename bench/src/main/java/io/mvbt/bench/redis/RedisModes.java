// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

import javax.crypto.spec.SecretKeySpec;

import io.mvbt.bench.Machine;
import io.mvbt.bench.StoreLoader;
import io.mvbt.bench.Workload;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.pagestore.redis.SealingKeys;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;
import io.mvbt.testkit.RedisServers;
import io.mvbt.testkit.TestCertificates;

/**
 * The Redis store's deployment modes beside a file store, in one run, on two local clusters of 3
 * masters with a replica each (append-only, fsync every second; one plain, one TLS-only): one-key
 * commits per second under NORMAL and SYNC, the lag of a reader in another process following the
 * SYNC writer, and random reads from a reader with an empty cache (cold: every page from Redis)
 * and then warm. Modes: plain, waiting for 1 replica, TLS, sealed, and all three. Every read is
 * verified. {@code mvbt-bench.jar redis-modes [--entries N] [--seconds S] [--reads N]}.
 */
public final class RedisModes {
    private static final String TREE = "bench";
    private static final byte[] CLOCK = "~clock".getBytes(StandardCharsets.US_ASCII);
    private static final SealingKeys KEYS = SealingKeys.of("bench", new SecretKeySpec(new byte[32], "AES"));

    private RedisModes() {
    }

    /** One row: how the writer and an in-process reader open the store, and how a follower JVM does. */
    private record Mode(String name, Supplier<Store> writer, Supplier<Store> reader, List<String> follower) {
    }

    public static int main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            follow(Arrays.copyOfRange(args, 1, args.length));
            return 0;
        }
        long entries = 100_000;
        double seconds = 5;
        long reads = 20_000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--entries" -> entries = Long.parseLong(args[i + 1].replace("_", ""));
                case "--seconds" -> seconds = Double.parseDouble(args[i + 1]);
                case "--reads" -> reads = Long.parseLong(args[i + 1].replace("_", ""));
                default -> {
                    System.err.println("usage: redis-modes [--entries N] [--seconds S] [--reads N]");
                    return 2;
                }
            }
        }
        Path dir = Files.createTempDirectory("mvbt-redis-modes");
        TestCertificates certificates = TestCertificates.create(dir.resolve("certificates"), "dns:localhost,ip:127.0.0.1");
        List<String> everysec = List.of("--appendfsync", "everysec");
        List<String> tlsArgs = new ArrayList<>(certificates.serverArgs());
        tlsArgs.addAll(List.of("--tls-cluster", "yes", "--tls-replication", "yes"));
        tlsArgs.addAll(everysec);
        try (RedisServers plain = RedisServers.cluster(dir.resolve("plain"), 3, 1, true,
                new RedisServers.Setup(everysec, List.of(), false));
                RedisServers tls = RedisServers.cluster(dir.resolve("tls"), 3, 1, true,
                        new RedisServers.Setup(tlsArgs, certificates.cliArgs(), true))) {
            RedisEndpoint plainEndpoint = RedisEndpoint.parse(plain.address());
            RedisEndpoint tlsEndpoint = RedisEndpoint.parse("cluster:rediss://" + tls.address().substring("cluster:".length()))
                    .withTls(certificates.trustingContext(), null);
            // The follower JVM trusts the authority through the JDK's trust store properties.
            Path trust = dir.resolve("certificates").resolve("client.p12");
            List<String> trustArgs = List.of("-Djavax.net.ssl.trustStore=" + trust, "-Djavax.net.ssl.trustStorePassword=mvbt-test",
                    "-Djavax.net.ssl.trustStoreType=PKCS12");
            RedisStoreOptions base = RedisStoreOptions.defaults().leaseWait(Duration.ofSeconds(15));
            RedisStoreOptions replica = base.syncReplicas(1, Duration.ofMillis(500));
            Path file = dir.resolve("file.mvbt");
            List<Mode> modes = List.of(
                    new Mode("file", () -> Store.open(file), () -> Store.openReadOnly(file), List.of("file", file.toString())),
                    redis("redis", plainEndpoint, "plain", base, List.of()),
                    redis("redis, 1 replica", plainEndpoint, "replica", replica, List.of()),
                    redis("redis, TLS", tlsEndpoint, "tls", base, trustArgs),
                    redis("redis, sealed", plainEndpoint, "sealed", base.sealWith(KEYS), List.of()),
                    redis("redis, TLS + sealed + 1 replica", tlsEndpoint, "all", replica.sealWith(KEYS), trustArgs));
            System.out.println("# The Redis store's modes beside a file store (" + entries + " entries, " + seconds
                    + " s a phase, " + reads + " cold reads)");
            System.out.println();
            System.out.println("Machine: " + Machine.describe() + "; two local 3+3 Redis clusters (append-only, everysec)");
            System.out.println();
            System.out.println("| mode | NORMAL commits/s | SYNC commits/s | follower lag p50 / p99 ms | cold reads/s | warm reads/s |");
            System.out.println("|---|---:|---:|---:|---:|---:|");
            // A first pass, not shown, so that the first mode does not pay for the JIT.
            run(redis("warm-up", plainEndpoint, "warm-up", base, List.of()), Math.min(entries, 20_000), 1, 1000);
            for (Mode mode : modes) {
                System.out.println(run(mode, entries, seconds, reads));
            }
        }
        return 0;
    }

    private static Mode redis(String name, RedisEndpoint endpoint, String store, RedisStoreOptions options,
            List<String> jvmArgs) {
        List<String> follower = new ArrayList<>(jvmArgs);
        follower.addAll(List.of("redis", endpoint.toString(), store,
                options.sealingKeys() != null ? "sealed" : "plain", Integer.toString(options.syncReplicas())));
        return new Mode(name, () -> Store.open(RedisPageStore.open(endpoint, store, options), StoreOptions.defaults()),
                () -> Store.open(RedisPageStore.openReader(endpoint, store, options), StoreOptions.defaults()), follower);
    }

    private static String run(Mode mode, long entries, double seconds, long reads) throws Exception {
        Workload w = new Workload();
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        double normal;
        double sync;
        String lag;
        try (Store store = mode.writer.get()) {
            StoreLoader.load(store, TREE, entries);
            store.sync();
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 7);
            normal = commits(store, w, rng, entries, seconds, Durability.NORMAL);
            store.sync();
            Process follower = startFollower(mode.follower, seconds);
            BufferedReader out = new BufferedReader(new InputStreamReader(follower.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            if (!"ready".equals(ready)) {
                throw new IllegalStateException("the follower did not start: " + ready);
            }
            sync = commits(store, w, rng, entries, seconds, Durability.SYNC);
            lag = out.readLine();
            follower.waitFor();
            if (lag == null || !lag.startsWith("lag ")) {
                throw new IllegalStateException("the follower failed: " + lag);
            }
        }
        double cold;
        double warm;
        try (Store reader = mode.reader.get(); Snapshot s = reader.beginRead()) {
            Tree t = reader.tree(TREE);
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 100);
            long start = System.nanoTime();
            for (long j = 0; j < reads; j++) {
                check(s, t, w, rng.nextLong(entries), key, value);
            }
            cold = reads / ((System.nanoTime() - start) / 1e9);
            long done = 0;
            long end = System.nanoTime() + (long) (seconds * 1e9);
            start = System.nanoTime();
            while (System.nanoTime() < end) {
                for (int k = 0; k < 1000; k++) {
                    check(s, t, w, rng.nextLong(entries), key, value);
                }
                done += 1000;
            }
            warm = done / ((System.nanoTime() - start) / 1e9);
        }
        String[] l = lag.split(" ");
        return String.format("| %s | %,.0f | %,.0f | %s / %s | %,.0f | %,.0f |", mode.name, normal, sync, l[1], l[2], cold, warm);
    }

    /** One-key commits of random keys (the same values, so reads stay verifiable) for the given seconds; commits/s. */
    private static double commits(Store store, Workload w, SplittableRandom rng, long entries, double seconds, Durability durability) {
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        long commits = 0;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        while (System.nanoTime() < end) {
            long i = rng.nextLong(entries);
            Workload.presentKey(i, key);
            w.value(i, 0, value);
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTreeIfAbsent(TREE);
                tx.put(t, key, value);
                tx.put(t, CLOCK, Long.toString(System.nanoTime()).getBytes(StandardCharsets.US_ASCII));
                tx.commit(durability);
            }
            commits++;
        }
        return commits / ((System.nanoTime() - start) / 1e9);
    }

    private static void check(Snapshot s, Tree t, Workload w, long i, byte[] key, byte[] expected) {
        Workload.presentKey(i, key);
        w.value(i, 0, expected);
        if (!Arrays.equals(s.get(t, key), expected)) {
            throw new IllegalStateException("key " + i + " misread");
        }
    }

    private static Process startFollower(List<String> args, double seconds) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m"));
        int jvm = 0;
        while (jvm < args.size() && args.get(jvm).startsWith("-D")) {
            command.add(args.get(jvm++));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.mvbt.bench.BenchMain", "redis-modes",
                "--child", Double.toString(seconds)));
        command.addAll(args.subList(jvm, args.size()));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /**
     * A follower: opens the store for reading, prints "ready", then for the given seconds (and one
     * more) opens a snapshot every millisecond; each time the writer's clock key is new, the time
     * since the writer stamped it is a lag. Prints "lag P50 P99" in milliseconds.
     */
    private static void follow(String[] args) throws Exception {
        double seconds = Double.parseDouble(args[0]);
        Store store;
        if (args[1].equals("file")) {
            store = Store.openReadOnly(Path.of(args[2]));
        } else {
            // rediss:// trusts the JDK's trust store, which the parent pointed at its authority.
            RedisEndpoint endpoint = RedisEndpoint.parse(args[2]);
            RedisStoreOptions options = RedisStoreOptions.defaults().syncReplicas(Integer.parseInt(args[5]),
                    Duration.ofMillis(500));
            if (args[4].equals("sealed")) {
                options = options.sealWith(KEYS);
            }
            store = Store.open(RedisPageStore.openReader(endpoint, args[3], options), StoreOptions.defaults());
        }
        List<Long> lags = new ArrayList<>();
        try (store) {
            Tree t = store.tree(TREE);
            System.out.println("ready");
            System.out.flush();
            byte[] last = null;
            long end = System.nanoTime() + (long) ((seconds + 1) * 1e9);
            while (System.nanoTime() < end) {
                try (Snapshot s = store.beginRead()) {
                    byte[] stamp = s.hasTree(t) ? s.get(t, CLOCK) : null;
                    long now = System.nanoTime();
                    if (stamp != null && !Arrays.equals(stamp, last)) {
                        if (last != null) {
                            lags.add(now - Long.parseLong(new String(stamp, StandardCharsets.US_ASCII)));
                        }
                        last = stamp;
                    }
                }
                Thread.sleep(1);
            }
        }
        lags.sort(null);
        System.out.println(lags.isEmpty() ? "lag - -" : String.format("lag %.2f %.2f", lags.get(lags.size() / 2) / 1e6,
                lags.get((int) (lags.size() * 0.99)) / 1e6));
    }
}
