// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.List;
import java.util.SplittableRandom;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * db_bench's phases with its defaults: 16-byte keys, 100-byte values, one operation per commit
 * unless the name says otherwise. Every read phase checks what it reads.
 */
final class DbBenchSuite implements Suite {
    static final int BATCH = 1000;
    static final int SEEK_NEXTS = 10;
    /**
     * Full scans per readseq / readreverse phase: one scan of a million entries takes about 70 ms,
     * short enough for one hiccup of a shared machine to move the ratio by a fifth.
     */
    static final int SCAN_PASSES = 5;
    static final int BIG_VALUE = 100_000;

    @Override
    public String name() {
        return "dbbench";
    }

    @Override
    public List<String> phases() {
        return List.of("fillseq", "fillrandom", "overwrite", "fillrandbatch", "fillsync", "readrandom", "readmissing",
                "readseq", "readreverse", "seekrandom", "fill100K", "readrandom100K");
    }

    /** Entries of fillsync: db_bench's num / 1000, at least 100. */
    static long syncCount(long entries) {
        return Math.max(100, entries / 1000);
    }

    /** Entries of fill100K: db_bench's num / 1000, at least 10. */
    static long bigCount(long entries) {
        return Math.max(10, entries / 1000);
    }

    @Override
    public void run(RunContext ctx) {
        long n = ctx.entries;
        Workload w = ctx.workload;
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];

        KvStore seq = ctx.open("fillseq");
        ctx.phase("fillseq", () -> {
            for (long i = 0; i < n; i++) {
                Workload.presentKey(i, key);
                w.value(i, 0, value);
                seq.put(key, value);
            }
            return n;
        });
        ctx.footprint("fillseq", seq, n);
        ctx.discardClosed(seq, "fillseq", "fillseq", n);

        KvStore db = ctx.open("fillrandom");
        fillRandom(ctx, db, n);
        ctx.footprint("fillrandom", db, n);
        SplittableRandom overwrites = new SplittableRandom(Workload.SEED + 2);
        ctx.phase("overwrite", () -> {
            for (long j = 0; j < n; j++) {
                long i = overwrites.nextLong(n);
                Workload.presentKey(i, key);
                w.value(i, 1, value);
                db.put(key, value);
            }
            return n;
        });
        ctx.footprint("overwrite", db, n);

        readPhases(ctx, db, n);
        ctx.discardClosed(db, "fillrandom", "overwrite", n);

        KvStore batched = ctx.open("fillrandbatch");
        Permutation batchOrder = new Permutation(n, Workload.SEED + 3);
        ctx.phase("fillrandbatch", () -> {
            for (long j = 0; j < n; j += BATCH) {
                KvStore.Batch b = batched.batch();
                for (long k = j; k < Math.min(n, j + BATCH); k++) {
                    long i = batchOrder.apply(k);
                    Workload.presentKey(i, key);
                    w.value(i, 0, value);
                    b.put(key, value);
                }
                b.commit();
            }
            return n;
        });
        ctx.footprint("fillrandbatch", batched, n);
        ctx.discardClosed(batched, "fillrandbatch", "fillrandbatch", n);

        long syncN = syncCount(n);
        KvStore synced = ctx.open("fillsync", SyncMode.SYNC);
        Permutation syncOrder = new Permutation(syncN, Workload.SEED + 4);
        ctx.phase("fillsync", () -> {
            for (long j = 0; j < syncN; j++) {
                long i = syncOrder.apply(j);
                Workload.presentKey(i, key);
                w.value(i, 0, value);
                synced.put(key, value);
            }
            return syncN;
        });
        ctx.discard(synced, "fillsync");

        long bigN = bigCount(n);
        byte[] big = new byte[BIG_VALUE];
        KvStore large = ctx.open("fill100K");
        Permutation bigOrder = new Permutation(bigN, Workload.SEED + 5);
        ctx.phase("fill100K", () -> {
            for (long j = 0; j < bigN; j++) {
                long i = bigOrder.apply(j);
                Workload.presentKey(i, key);
                w.value(i, 0, big);
                large.put(key, big);
            }
            return bigN;
        });
        ctx.footprint("fill100K", large, bigN);
        ctx.parallelPhase("readrandom100K", ctx.threads, t -> () -> {
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 100 + t);
            byte[] k = new byte[Workload.KEY_SIZE];
            UnsafeBuffer v = new UnsafeBuffer(new byte[0]);
            long count = share(bigN, ctx.threads, t);
            try (KvStore.Reader r = large.reader()) {
                for (long j = 0; j < count; j++) {
                    long i = rng.nextLong(bigN);
                    Workload.presentKey(i, k);
                    if (!r.get(k, v)) {
                        throw new VerificationException("readrandom100K: entry " + i + " is missing");
                    }
                    Workload.checkValue(v, i, BIG_VALUE);
                }
            }
            return count;
        });
        ctx.discard(large, "fill100K");
    }

    /** The fillrandom phase: entries {@code 0..n-1} in a random order, one commit each. */
    static void fillRandom(RunContext ctx, KvStore db, long n) {
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        Permutation order = new Permutation(n, Workload.SEED + 1);
        ctx.phase("fillrandom", () -> {
            for (long j = 0; j < n; j++) {
                long i = order.apply(j);
                Workload.presentKey(i, key);
                ctx.workload.value(i, 0, value);
                db.put(key, value);
            }
            return n;
        });
    }

    /** This thread's part of {@code total} operations. */
    static long share(long total, int threads, int t) {
        return total / threads + (t < total % threads ? 1 : 0);
    }

    /** The read phases over a store holding entries {@code 0..n-1}. */
    static void readPhases(RunContext ctx, KvStore db, long n) {
        long reads = ctx.reads;
        int threads = ctx.threads;
        ctx.parallelPhase("readrandom", threads, t -> () -> {
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 10 + t);
            byte[] k = new byte[Workload.KEY_SIZE];
            UnsafeBuffer v = new UnsafeBuffer(new byte[0]);
            long count = share(reads, threads, t);
            try (KvStore.Reader r = db.reader()) {
                for (long j = 0; j < count; j++) {
                    long i = rng.nextLong(n);
                    Workload.presentKey(i, k);
                    if (!r.get(k, v)) {
                        throw new VerificationException("readrandom: entry " + i + " is missing");
                    }
                    Workload.checkValue(v, i, Workload.VALUE_SIZE);
                }
            }
            return count;
        });
        ctx.parallelPhase("readmissing", threads, t -> () -> {
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 20 + t);
            byte[] k = new byte[Workload.KEY_SIZE];
            UnsafeBuffer v = new UnsafeBuffer(new byte[0]);
            long count = share(reads, threads, t);
            try (KvStore.Reader r = db.reader()) {
                for (long j = 0; j < count; j++) {
                    long i = rng.nextLong(n);
                    Workload.missingKey(i, k);
                    if (r.get(k, v)) {
                        throw new VerificationException("readmissing: found key " + (2 * i + 1) + " that was never written");
                    }
                }
            }
            return count;
        });
        ctx.parallelPhase("readseq", threads, t -> () -> scans(db, n, true));
        ctx.parallelPhase("readreverse", threads, t -> () -> scans(db, n, false));
        ctx.parallelPhase("seekrandom", threads, t -> () -> {
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 30 + t);
            byte[] k = new byte[Workload.KEY_SIZE];
            long count = share(reads, threads, t);
            try (KvStore.Reader r = db.reader(); KvStore.Scan s = r.scan()) {
                for (long j = 0; j < count; j++) {
                    long i = rng.nextLong(n);
                    // Seek to the gap after entry i: the cursor must land on entry i + 1.
                    Workload.missingKey(i, k);
                    boolean on = s.seek(k);
                    for (long e = i + 1; e <= i + 1 + SEEK_NEXTS; e++) {
                        if (e >= n) {
                            if (on) {
                                throw new VerificationException("seekrandom: an entry after the last one");
                            }
                            break;
                        }
                        if (!on) {
                            throw new VerificationException("seekrandom: entry " + e + " is missing after seek to "
                                    + (2 * i + 1));
                        }
                        checkEntry(s, e);
                        if (e < i + 1 + SEEK_NEXTS) {
                            on = s.next();
                        }
                    }
                }
            }
            return count;
        });
    }

    private static void checkEntry(KvStore.Scan s, long index) {
        long number = Workload.number(s.key());
        if (number != 2 * index) {
            throw new VerificationException("cursor stands on key " + number + ", expected " + 2 * index);
        }
        Workload.checkValue(s.value(), index, Workload.VALUE_SIZE);
    }

    /** {@link #SCAN_PASSES} full scans. */
    private static long scans(KvStore db, long n, boolean forward) {
        long seen = 0;
        for (int pass = 0; pass < SCAN_PASSES; pass++) {
            seen += scan(db, n, forward);
        }
        return seen;
    }

    /** A full scan, checking that it visits every entry once in key order. */
    static long scan(KvStore db, long n, boolean forward) {
        long seen = 0;
        try (KvStore.Reader r = db.reader(); KvStore.Scan s = r.scan()) {
            boolean on = forward ? s.first() : s.last();
            long expected = forward ? 0 : n - 1;
            while (on) {
                if (expected < 0 || expected >= n) {
                    throw new VerificationException("scan goes past the " + n + " entries");
                }
                DirectBuffer k = s.key();
                long number = Workload.number(k);
                if (number != 2 * expected) {
                    throw new VerificationException((forward ? "readseq" : "readreverse") + ": key " + number
                            + " where " + 2 * expected + " belongs");
                }
                Workload.checkValue(s.value(), expected, Workload.VALUE_SIZE);
                seen++;
                expected += forward ? 1 : -1;
                on = forward ? s.next() : s.prev();
            }
        }
        if (seen != n) {
            throw new VerificationException("scan saw " + seen + " entries of " + n);
        }
        return seen;
    }
}
