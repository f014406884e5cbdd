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
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.WriteTxn;

/**
 * The per-commit cost a history table pays: one write transaction that overwrites one random key
 * and commits, in {@code Durability.NORMAL} (or {@code -p durability=SYNC}) on a file store in a
 * temp directory, with or without a redo log ({@code -p redoLog=true}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class CommitBenchmark {
    @Param("1000000")
    public long entries;

    @Param("NORMAL")
    public Durability durability;

    @Param("false")
    public boolean redoLog;

    private StoreFixture fixture;
    private final SplittableRandom rng = new SplittableRandom(Workload.SEED + 2);
    private final Workload workload = new Workload();
    private final byte[] keyBytes = new byte[Workload.KEY_SIZE];
    private final byte[] valueBytes = new byte[Workload.VALUE_SIZE];
    private final UnsafeBuffer key = new UnsafeBuffer(keyBytes);
    private final UnsafeBuffer value = new UnsafeBuffer(valueBytes);

    @Setup(Level.Trial)
    public void setUp() {
        fixture = new StoreFixture(entries, StoreOptions.defaults().durability(durability).redoLog(redoLog));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fixture.close();
    }

    @Benchmark
    public long commitOneKey() {
        long i = rng.nextLong(entries);
        Workload.presentKey(i, keyBytes);
        workload.value(i, 1, valueBytes);
        try (WriteTxn tx = fixture.store.beginWrite()) {
            tx.put(fixture.tree, key, value);
            tx.commit();
            return tx.revision();
        }
    }
}
