// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Range deletion and what it costs readers afterwards: readrandom before and after 1,000
 * deletions of 100 consecutive keys, each deletion its own commit, by each store's own best
 * method (see {@link KvStore#deleteRangeMethod()}).
 */
final class DeleteRangeSuite implements Suite {
    static final int RANGE = 100;
    static final int RANGES = 1000;
    /** Range deletions of the warm-up run: past C2's threshold of 5,000 calls, with room. */
    static final int WARMUP_DELETIONS = 10 * RANGES;

    @Override
    public String name() {
        return "deleterange";
    }

    @Override
    public List<String> phases() {
        return List.of("load", "readrandom-before", "deleterange", "readrandom-after", "readseq-after");
    }

    /** 1,000 ranges, or fewer on a small store so that at most half the keys go. */
    static int ranges(long entries) {
        return (int) Math.max(1, Math.min(RANGES, entries / (2 * RANGE)));
    }

    @Override
    public void run(RunContext ctx) {
        long n = ctx.entries;
        if (n < 2 * RANGE) {
            throw new IllegalArgumentException("deleterange needs at least " + 2 * RANGE + " entries");
        }
        KvStore db = ctx.open("deleterange");
        load(ctx, db, n, "load");
        ctx.footprint("deleterange load", db, n);
        ctx.note("deleteRange: " + db.deleteRangeMethod());

        BitSet deleted = new BitSet();
        readrandom(ctx, db, n, deleted, "readrandom-before");

        int ranges = ranges(n);
        long slots = n / RANGE;
        Permutation pick = new Permutation(slots, Workload.SEED + 60);
        if (!ctx.measuring()) {
            // A warm-up store has few ranges to delete. Delete and restore them until the deletion
            // path has run WARMUP_DELETIONS times, so that each store is measured in its compiled
            // code: the measured phase lasts tens of milliseconds, and the JVM's optimizing compiler
            // (C2) takes a method only after about 5,000 calls; until then it runs the profiling
            // code of the first compiler, several times slower.
            for (int done = 0; done < WARMUP_DELETIONS; done += ranges) {
                deleteRanges(db, pick, ranges);
                restoreRanges(ctx, db, pick, ranges);
            }
        }
        ctx.phase("deleterange", () -> {
            deleteRanges(db, pick, ranges);
            return ranges;
        });
        for (int j = 0; j < ranges; j++) {
            long first = pick.apply(j) * RANGE;
            deleted.set((int) first, (int) (first + RANGE));
        }
        readrandom(ctx, db, n, deleted, "readrandom-after");
        long live = n - deleted.cardinality();
        ctx.phase("readseq-after", () -> {
            long seen = 0;
            long previous = -1;
            try (KvStore.Reader r = db.reader(); KvStore.Scan s = r.scan()) {
                for (boolean on = s.first(); on; on = s.next()) {
                    long number = Workload.number(s.key());
                    long i = number / 2;
                    if (number % 2 != 0 || number <= previous || deleted.get((int) i)) {
                        throw new VerificationException("readseq-after: unexpected key " + number);
                    }
                    Workload.checkValue(s.value(), i, Workload.VALUE_SIZE);
                    previous = number;
                    seen++;
                }
            }
            if (seen != live) {
                throw new VerificationException("readseq-after saw " + seen + " entries, expected " + live);
            }
            return seen;
        });
        ctx.footprint("deleterange", db, live);
        ctx.discard(db, "deleterange");
    }

    /** Deletes ranges {@code 0..ranges-1} of {@code pick}, one commit each, and checks the counts. */
    private static void deleteRanges(KvStore db, Permutation pick, int ranges) {
        byte[] from = new byte[Workload.KEY_SIZE];
        byte[] to = new byte[Workload.KEY_SIZE];
        for (int j = 0; j < ranges; j++) {
            long first = pick.apply(j) * RANGE;
            Workload.presentKey(first, from);
            Workload.presentKey(first + RANGE, to);
            long count = db.deleteRange(from, to);
            if (count >= 0 && count != RANGE) {
                throw new VerificationException("deleterange removed " + count + " keys from [" + 2 * first + ", "
                        + 2 * (first + RANGE) + "), expected " + RANGE);
            }
        }
    }

    /** Puts back what {@link #deleteRanges} removed, one commit per range. */
    private static void restoreRanges(RunContext ctx, KvStore db, Permutation pick, int ranges) {
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        for (int j = 0; j < ranges; j++) {
            long first = pick.apply(j) * RANGE;
            KvStore.Batch b = db.batch();
            for (long i = first; i < first + RANGE; i++) {
                Workload.presentKey(i, key);
                ctx.workload.value(i, 0, value);
                b.put(key, value);
            }
            b.commit();
        }
    }

    /** Loads entries {@code 0..n-1} in random order, 1,000 per commit. */
    static void load(RunContext ctx, KvStore db, long n, String phase) {
        Permutation order = new Permutation(n, Workload.SEED + 3);
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        ctx.phase(phase, () -> {
            for (long j = 0; j < n; j += DbBenchSuite.BATCH) {
                KvStore.Batch b = db.batch();
                for (long k = j; k < Math.min(n, j + DbBenchSuite.BATCH); k++) {
                    long i = order.apply(k);
                    Workload.presentKey(i, key);
                    ctx.workload.value(i, 0, value);
                    b.put(key, value);
                }
                b.commit();
            }
            return n;
        });
    }

    private static void readrandom(RunContext ctx, KvStore db, long n, BitSet deleted, String phase) {
        ctx.parallelPhase(phase, ctx.threads, t -> () -> {
            // The same keys before and after, so the two rates compare like for like.
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 70 + t);
            byte[] k = new byte[Workload.KEY_SIZE];
            UnsafeBuffer v = new UnsafeBuffer(new byte[0]);
            long count = DbBenchSuite.share(ctx.reads, ctx.threads, t);
            try (KvStore.Reader r = db.reader()) {
                for (long j = 0; j < count; j++) {
                    long i = rng.nextLong(n);
                    Workload.presentKey(i, k);
                    boolean found = r.get(k, v);
                    boolean gone = deleted.get((int) i);
                    if (found == gone) {
                        throw new VerificationException(phase + ": entry " + i + (gone ? " was deleted but is found"
                                : " is missing"));
                    }
                    if (found) {
                        Workload.checkValue(v, i, Workload.VALUE_SIZE);
                    }
                }
            }
            return count;
        });
    }
}
