// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.UnsafeBuffer;

import org.HdrHistogram.Histogram;

/**
 * Readers and one writer at once: the writer overwrites random keys, one per commit, while
 * {@code --threads} readers run readrandom, each opening a fresh snapshot every
 * {@value #READS_PER_SNAPSHOT} reads. The same readers alone first give the rate to compare with.
 * Every read is timed, its snapshot's open counted in the first read of each snapshot, and so is
 * every commit of the writer; the spread of those latencies is reported beside the rates.
 */
final class ReadWhileWritingSuite implements Suite {
    static final int READS_PER_SNAPSHOT = 100;

    @Override
    public String name() {
        return "readwhilewriting";
    }

    @Override
    public List<String> phases() {
        return List.of("load", "readonly", "rww-read", "rww-write");
    }

    @Override
    public void run(RunContext ctx) {
        long n = ctx.entries;
        KvStore db = ctx.open("readwhilewriting");
        DeleteRangeSuite.load(ctx, db, n, "load");
        ctx.note("readers open a fresh snapshot every " + READS_PER_SNAPSHOT + " reads; the writer commits each overwrite");
        long nanos = (long) (ctx.seconds * 1e9);

        ProcessCounters before = ProcessCounters.now();
        long start = System.nanoTime();
        Histogram solo = new Histogram(3);
        long soloReads = readers(ctx, db, n, new AtomicBoolean(), start + nanos, solo);
        long soloNanos = System.nanoTime() - start;
        ctx.report(new Protocol.Timing("readonly", soloReads, soloNanos));
        ctx.latency("readonly", solo);
        ctx.cost("readonly", before);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        // Each commit timed: a writer that stalls behind a checkpoint shows in its tail, not its rate.
        Histogram commits = new Histogram(3);
        Thread writer = new Thread(() -> {
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 80);
            byte[] key = new byte[Workload.KEY_SIZE];
            byte[] value = new byte[Workload.VALUE_SIZE];
            int generation = 1;
            while (!stop.get()) {
                long i = rng.nextLong(n);
                Workload.presentKey(i, key);
                ctx.workload.value(i, generation, value);
                long began = System.nanoTime();
                db.put(key, value);
                commits.recordValue(Math.max(0, System.nanoTime() - began));
                writes.lazySet(writes.get() + 1);
            }
        }, "bench-writer");
        Throwable[] writerFailure = new Throwable[1];
        writer.setUncaughtExceptionHandler((t, e) -> {
            writerFailure[0] = e;
            stop.set(true);
        });
        before = ProcessCounters.now();
        start = System.nanoTime();
        writer.start();
        long reads;
        Histogram beside = new Histogram(3);
        try {
            reads = readers(ctx, db, n, stop, start + nanos, beside);
        } finally {
            stop.set(true);
            try {
                writer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long elapsed = System.nanoTime() - start;
        RunContext.rethrow(writerFailure[0]);
        ctx.report(new Protocol.Timing("rww-read", reads, elapsed));
        ctx.latency("rww-read", beside);
        ctx.cost("rww-read", before);
        ctx.report(new Protocol.Timing("rww-write", writes.get(), elapsed));
        ctx.latency("rww-write", commits);
        ctx.footprint("readwhilewriting", db, n);
        ctx.discard(db, "readwhilewriting");
    }

    /**
     * Runs the reader threads until {@code deadline} (or {@code stop}); returns the reads done, and
     * adds their latencies to {@code into}.
     */
    private static long readers(RunContext ctx, KvStore db, long n, AtomicBoolean stop, long deadline,
            Histogram into) {
        Histogram[] perThread = new Histogram[ctx.threads];
        long done = RunContext.parallel(ctx.threads, t -> () -> {
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 90 + t);
            byte[] k = new byte[Workload.KEY_SIZE];
            UnsafeBuffer v = new UnsafeBuffer(new byte[0]);
            Histogram latencies = new Histogram(3);
            perThread[t] = latencies;
            long reads = 0;
            while (!stop.get() && System.nanoTime() < deadline) {
                long began = System.nanoTime();
                try (KvStore.Reader r = db.reader()) {
                    for (int j = 0; j < READS_PER_SNAPSHOT; j++) {
                        long i = rng.nextLong(n);
                        Workload.presentKey(i, k);
                        boolean found = r.get(k, v);
                        latencies.recordValue(Math.max(0, System.nanoTime() - began));
                        if (!found) {
                            throw new VerificationException("readwhilewriting: entry " + i + " is missing");
                        }
                        Workload.checkValue(v, i, Workload.VALUE_SIZE);
                        began = System.nanoTime();
                    }
                }
                reads += READS_PER_SNAPSHOT;
            }
            return reads;
        });
        for (Histogram h : perThread) {
            if (h != null) {
                into.add(h);
            }
        }
        return done;
    }
}
