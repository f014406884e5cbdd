// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
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

import io.mvbt.bench.Workload;
import io.mvbt.revisions.Snapshot;

/** Point lookups on one snapshot through the zero-copy {@code get}: hits and misses. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class SnapshotLookupBenchmark {
    private static final int KEYS = 1 << 16;

    @Param("1000000")
    public long entries;

    private StoreFixture fixture;
    private Snapshot snapshot;
    private final UnsafeBuffer key = new UnsafeBuffer(new byte[Workload.KEY_SIZE]);
    private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
    private final byte[][] hits = new byte[KEYS][];
    private final byte[][] misses = new byte[KEYS][];
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        fixture = new StoreFixture(entries);
        snapshot = fixture.store.beginRead();
        SplittableRandom rng = new SplittableRandom(Workload.SEED);
        for (int i = 0; i < KEYS; i++) {
            hits[i] = new byte[Workload.KEY_SIZE];
            misses[i] = new byte[Workload.KEY_SIZE];
            long e = rng.nextLong(entries);
            Workload.presentKey(e, hits[i]);
            Workload.missingKey(e, misses[i]);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        snapshot.close();
        fixture.close();
    }

    @Benchmark
    public boolean getHit() {
        key.wrap(hits[next++ & (KEYS - 1)]);
        if (!snapshot.get(fixture.tree, key, value)) {
            throw new IllegalStateException("a written key is missing");
        }
        return value.getByte(0) != 0;
    }

    @Benchmark
    public boolean getMiss() {
        key.wrap(misses[next++ & (KEYS - 1)]);
        return snapshot.get(fixture.tree, key, value);
    }
}
