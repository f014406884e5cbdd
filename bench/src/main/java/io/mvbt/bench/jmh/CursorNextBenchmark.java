// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.util.concurrent.TimeUnit;

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

import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Snapshot;

/** One step of a cursor over a snapshot, forward and backward, reading the key and value views. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CursorNextBenchmark {
    @Param("1000000")
    public long entries;

    private StoreFixture fixture;
    private Snapshot snapshot;
    private Cursor forward;
    private Cursor backward;

    @Setup(Level.Trial)
    public void setUp() {
        fixture = new StoreFixture(entries);
        snapshot = fixture.store.beginRead();
        forward = snapshot.cursor(fixture.tree);
        forward.first();
        backward = snapshot.cursor(fixture.tree);
        backward.last();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        forward.close();
        backward.close();
        snapshot.close();
        fixture.close();
    }

    @Benchmark
    public int next() {
        if (!forward.next()) {
            forward.first();
        }
        return forward.key().getByte(15) + forward.value().getByte(0);
    }

    @Benchmark
    public int prev() {
        if (!backward.prev()) {
            backward.last();
        }
        return backward.key().getByte(15) + backward.value().getByte(0);
    }
}
