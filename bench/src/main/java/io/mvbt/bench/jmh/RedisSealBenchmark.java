// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import javax.crypto.spec.SecretKeySpec;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

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

/**
 * What sealing pages (AES-GCM, {@code RedisStoreOptions.sealWith}) costs at Redis round-trip
 * scale, against one in-memory redis-server on loopback: a one-key commit under SYNC (its pages
 * and meta sealed and sent) and NORMAL (sealed at the checkpoint), and a cold read (a snapshot
 * that reads a random key through a 256 KiB page cache, so most pages come from Redis and are
 * opened). Run with {@code -p sealed=false,true} (the default) and compare.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class RedisSealBenchmark {
    private static final String TREE = "bench";

    @Param({"false", "true"})
    public boolean sealed;

    @Param("100000")
    public long entries;

    private RedisServers server;
    private Store writer;
    private Store coldReader;
    private Tree tree;
    private final SplittableRandom rng = new SplittableRandom(Workload.SEED + 3);
    private final Workload workload = new Workload();
    private final byte[] key = new byte[Workload.KEY_SIZE];
    private final byte[] value = new byte[Workload.VALUE_SIZE];

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Path dir = Files.createTempDirectory("mvbt-seal-bench");
        server = RedisServers.single(dir, false);
        RedisEndpoint endpoint = RedisEndpoint.parse(server.address());
        RedisStoreOptions options = RedisStoreOptions.defaults();
        if (sealed) {
            options = options.sealWith(SealingKeys.of("bench", new SecretKeySpec(new byte[32], "AES")));
        }
        writer = Store.open(RedisPageStore.open(endpoint, "seal", options), StoreOptions.defaults());
        StoreLoader.load(writer, TREE, entries);
        writer.sync();
        tree = writer.tree(TREE);
        coldReader = Store.open(RedisPageStore.openReader(endpoint, "seal", options.cacheBytes(256 << 10)),
                StoreOptions.defaults());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        coldReader.close();
        writer.close();
        server.close();
    }

    private void commit(Durability durability) {
        long i = rng.nextLong(entries);
        Workload.presentKey(i, key);
        workload.value(i, 0, value);
        try (WriteTxn tx = writer.beginWrite()) {
            tx.put(tree, key, value);
            tx.commit(durability);
        }
    }

    @Benchmark
    public void commitSync() {
        commit(Durability.SYNC);
    }

    @Benchmark
    public void commitNormal() {
        commit(Durability.NORMAL);
    }

    @Benchmark
    public int readCold() {
        long i = rng.nextLong(entries);
        Workload.presentKey(i, key);
        try (Snapshot s = coldReader.beginRead()) {
            byte[] found = s.get(coldReader.tree(TREE), key);
            if (found == null) {
                throw new IllegalStateException("key " + i + " missing");
            }
            return found.length;
        }
    }
}
