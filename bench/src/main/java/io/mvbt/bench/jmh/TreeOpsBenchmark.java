// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
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

import io.mvbt.revisions.BulkLoad;
import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * Counted-tree operations against walking: entries in a range by {@code countRange} (O(log n))
 * versus a cursor walk of it; moving 1,000 entries by {@code skip} versus 1,000 {@code next}s.
 * On an in-memory store of {@code entries} 16-byte keys, bulk loaded.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g",
        "-XX:MaxDirectMemorySize=4g"})
@State(Scope.Benchmark)
public class TreeOpsBenchmark {
    @Param("1000000")
    public long entries;

    /** Entries in the counted or walked range. */
    @Param("100000")
    public int span;

    private Store store;
    private Tree tree;
    private Snapshot snapshot;
    private Cursor cursor;
    private final SplittableRandom random = new SplittableRandom(7);

    static byte[] key(long i) {
        return ByteBuffer.allocate(16).putLong(0x5EED_0000_0000_0000L).putLong(i).array();
    }

    @Setup(Level.Trial)
    public void setUp() {
        store = Store.inMemory();
        try (WriteTxn tx = store.beginWrite()) {
            tree = tx.createTree("t");
            try (BulkLoad load = tx.bulkLoad(tree)) {
                byte[] value = new byte[100];
                for (long i = 0; i < entries; i++) {
                    load.add(key(i), value);
                }
            }
            tx.commit();
        }
        snapshot = store.beginRead();
        cursor = snapshot.cursor(tree);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        cursor.close();
        snapshot.close();
        store.close();
    }

    @Benchmark
    public long countRange() {
        long from = random.nextLong(entries - span);
        return snapshot.countRange(tree, key(from), key(from + span));
    }

    @Benchmark
    public long walkRange() {
        long from = random.nextLong(entries - span);
        byte[] end = key(from + span);
        long n = 0;
        for (boolean ok = cursor.seek(key(from)); ok && compare(cursor, end) < 0; ok = cursor.next()) {
            n++;
        }
        return n;
    }

    @Benchmark
    public long skipThousand() {
        cursor.seekPosition(random.nextLong(entries - 1000));
        cursor.skip(1000);
        return cursor.position();
    }

    @Benchmark
    public long nextThousand() {
        cursor.seekPosition(random.nextLong(entries - 1000));
        for (int i = 0; i < 1000; i++) {
            cursor.next();
        }
        return cursor.keyLength();
    }

    private static int compare(Cursor c, byte[] key) {
        var k = c.key();
        for (int i = 0; i < 16; i++) {
            int d = (k.getByte(i) & 0xff) - (key[i] & 0xff);
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    /** Loading: sorted bulk load against random puts in commits of 1,000, both on a fresh memory store. */
    @State(Scope.Thread)
    public static class Load {
        @Param("1000000")
        public long entries;

        Store store;

        @Setup(Level.Invocation)
        public void open() {
            store = Store.inMemory();
        }

        @TearDown(Level.Invocation)
        public void close() {
            store.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @Warmup(iterations = 1)
    @Measurement(iterations = 3)
    public long bulkLoad(Load state) {
        try (WriteTxn tx = state.store.beginWrite()) {
            Tree t = tx.createTree("t");
            byte[] value = new byte[100];
            try (BulkLoad load = tx.bulkLoad(t)) {
                for (long i = 0; i < state.entries; i++) {
                    load.add(key(i), value);
                }
            }
            tx.commit();
            return tx.revision();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @Warmup(iterations = 1)
    @Measurement(iterations = 3)
    public long randomInsert(Load state) {
        SplittableRandom random = new SplittableRandom(3);
        byte[] value = new byte[100];
        Tree t;
        try (WriteTxn tx = state.store.beginWrite()) {
            t = tx.createTree("t");
            tx.commit();
        }
        for (long i = 0; i < state.entries;) {
            try (WriteTxn tx = state.store.beginWrite()) {
                for (int j = 0; j < 1000 && i < state.entries; j++, i++) {
                    tx.put(t, key(random.nextLong(1L << 40)), value);
                }
                tx.commit();
            }
        }
        return state.entries;
    }
}
