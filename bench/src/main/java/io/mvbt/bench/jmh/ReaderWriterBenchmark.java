// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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

import io.mvbt.bench.Disk;
import io.mvbt.revisions.BulkLoad;
import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * Does a scanning reader slow the writer? The writer commits one random overwrite per transaction
 * (NORMAL, file store), alone ({@code alone}) and beside a reader on the other core that scans all
 * the time, a fresh snapshot per 1,000 entries ({@code withReader}: its {@code commit} score is the
 * writer's rate, {@code scan} the reader's). The ratio of the two commit rates is the figure.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
@State(Scope.Group)
public class ReaderWriterBenchmark {
    @Param("200000")
    public int entries;

    private Path dir;
    private Store store;
    private Tree tree;
    private final SplittableRandom writeRandom = new SplittableRandom(1);

    static byte[] key(long i) {
        return ByteBuffer.allocate(16).putLong(0x5EED_0000_0000_0000L).putLong(i).array();
    }

    @Setup(Level.Trial)
    public void setUp() {
        try {
            dir = Files.createTempDirectory("mvbt-rw");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        store = Store.open(dir.resolve("rw.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL));
        try (WriteTxn tx = store.beginWrite()) {
            tree = tx.createTree("t");
            try (BulkLoad load = tx.bulkLoad(tree, 0.8)) {
                for (long i = 0; i < entries; i++) {
                    load.add(key(i), new byte[100]);
                }
            }
            tx.commit();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        Disk.delete(dir);
    }

    private long commitOne() {
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(tree, key(writeRandom.nextInt(entries)), new byte[100]);
            tx.commit();
            return tx.revision();
        }
    }

    @Benchmark
    @Group("alone")
    public long commit() {
        return commitOne();
    }

    @Benchmark
    @Group("withReader")
    @GroupThreads(1)
    public long commitBesideReader() {
        return commitOne();
    }

    /** One unit of reading: a fresh snapshot, 1,000 entries scanned from a random place. */
    @Benchmark
    @Group("withReader")
    @GroupThreads(1)
    public long scan(ReaderState reader) {
        long sum = 0;
        try (Snapshot s = store.beginRead(); Cursor c = s.cursor(tree)) {
            boolean ok = c.seekPosition(reader.random.nextInt(entries - 1000));
            for (int i = 0; i < 1000 && ok; i++, ok = c.next()) {
                sum += c.keyLength();
            }
        }
        return sum;
    }

    /** Each reader thread's own random source. */
    @State(Scope.Thread)
    public static class ReaderState {
        final SplittableRandom random = new SplittableRandom(Thread.currentThread().getId());
    }
}
