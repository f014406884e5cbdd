// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;
import java.util.SplittableRandom;

import org.agrona.DirectBuffer;

import io.mvbt.revisions.BulkLoad;
import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.DiffStats;
import io.mvbt.revisions.DiffVisitor;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.TreeStats;
import io.mvbt.revisions.WriteTxn;

/**
 * What changed between two revisions: {@code Snapshot.diff} against a merge scan of both, which is
 * what a store without shared pages has to do. Loads N entries ({@link Workload} keys and 100-byte
 * values, bulk loaded in commits of 1M), takes revision A, changes K random keys in one commit (a
 * third each added, deleted and given a new value), takes revision B, and reports pages read and
 * time of each way, and their ratios. mvbt alone: no peer has addressable old revisions, so this
 * is not a {@link Suite} of the side-by-side comparison.
 * {@code mvbt-bench.jar diff [--entries N] [--changes K] [--dir PATH] [--out PATH]}.
 */
public final class DiffBench {
    private static final int LOAD_BATCH = 1_000_000;
    /** Diffs timed after the warm-up; the median is reported. */
    private static final int DIFF_RUNS = 21;
    /**
     * Diffing before the timed runs, so that they time compiled code: a diff of 1,000 changes lasts
     * milliseconds, and 20 runs leave the JIT half done (13 to 28 ms at 10M where 400 runs give 6.6).
     */
    private static final long WARMUP_NANOS = 2_000_000_000L;
    /** Merge scans timed: the first runs before the JIT has compiled the cursors. */
    private static final int SCAN_RUNS = 3;

    private DiffBench() {
    }

    public static int main(String[] args) throws IOException {
        long entries = 10_000_000;
        int changes = 1000;
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        Path out = Path.of("bench-results");
        for (int i = 0; i < args.length; i += 2) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (value == null ? "" : args[i]) {
                case "--entries" -> entries = BenchOptions.parseCount(value);
                case "--changes" -> changes = (int) BenchOptions.parseCount(value);
                case "--dir" -> dir = Path.of(value);
                case "--out" -> out = Path.of(value);
                default -> {
                    System.err.println("usage: diff [--entries N (default 10M)] [--changes K (default 1000)]"
                            + " [--dir PATH] [--out PATH]");
                    return 2;
                }
            }
        }
        if (changes < 3 || changes > entries / 2) {
            System.err.println("--changes must be 3 to half of --entries");
            return 2;
        }
        Path work = Files.createTempDirectory(dir, "mvbt-diff");
        try {
            Result r = run(work.resolve("mvbt.db"), entries, changes);
            Files.createDirectories(out);
            Path csv = out.resolve("diff.csv");
            Files.writeString(csv, r.csv());
            r.print(System.out);
            System.out.println("CSV: " + csv);
        } finally {
            Disk.delete(work);
        }
        return 0;
    }

    /** Pages read and nanoseconds of each way, and the changes each found. */
    record Result(long entries, int changes, int depth, long diffPages, long diffNanos, long diffFirstNanos,
            long scanPages, long scanNanos) {
        String csv() {
            return "method,entries,changed_keys,depth,pages_read,millis\n"
                    + String.format(Locale.ROOT, "diff,%d,%d,%d,%d,%.3f%n", entries, changes, depth, diffPages,
                            diffNanos / 1e6)
                    + String.format(Locale.ROOT, "diff-first-run,%d,%d,%d,%d,%.3f%n", entries, changes, depth,
                            diffPages, diffFirstNanos / 1e6)
                    + String.format(Locale.ROOT, "merge-scan,%d,%d,%d,%d,%.3f%n", entries, changes, depth, scanPages,
                            scanNanos / 1e6);
        }

        void print(PrintStream s) {
            s.printf(Locale.ROOT, "%,d entries (depth %d), %,d keys changed between revisions A and B%n", entries, depth,
                    changes);
            s.printf(Locale.ROOT, "  diff:       %,12d pages read %12.3f ms (median of %d after 2 s of warm-up; first run %.3f ms)%n",
                    diffPages, diffNanos / 1e6, DIFF_RUNS, diffFirstNanos / 1e6);
            s.printf(Locale.ROOT, "  merge scan: %,12d pages read %12.3f ms (median of %d)%n", scanPages, scanNanos / 1e6,
                    SCAN_RUNS);
            s.printf(Locale.ROOT, "  ratio: %.0fx fewer pages read, %.0fx faster%n", (double) scanPages / diffPages,
                    (double) scanNanos / diffNanos);
        }
    }

    static Result run(Path file, long entries, int changes) {
        StoreOptions options = StoreOptions.defaults().pageSize(4096).durability(Durability.NORMAL);
        try (Store store = Store.open(file, options)) {
            Tree tree = load(store, entries);
            try (Snapshot a = store.beginRead()) {
                change(store, tree, entries, changes);
                try (Snapshot b = store.beginRead()) {
                    return measure(a, b, tree, entries, changes);
                }
            }
        }
    }

    private static Tree load(Store store, long entries) {
        Workload workload = new Workload();
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        Tree tree = store.tree("bench");
        long start = System.nanoTime();
        for (long from = 0; from < entries; from += LOAD_BATCH) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.createTreeIfAbsent("bench");
                try (BulkLoad load = tx.bulkLoad(tree)) {
                    for (long i = from; i < Math.min(entries, from + LOAD_BATCH); i++) {
                        Workload.presentKey(i, key);
                        workload.value(i, 0, value);
                        load.add(key, value);
                    }
                }
                tx.commit();
            }
        }
        System.err.printf(Locale.ROOT, "loaded %,d entries in %.1f s%n", entries, (System.nanoTime() - start) / 1e9);
        return tree;
    }

    /** One commit: a third of the keys added between present ones, a third deleted, a third given new values. */
    private static void change(Store store, Tree tree, long entries, int changes) {
        Workload workload = new Workload();
        byte[] key = new byte[Workload.KEY_SIZE];
        byte[] value = new byte[Workload.VALUE_SIZE];
        SplittableRandom random = new SplittableRandom(Workload.SEED + 49);
        BitSet picked = new BitSet();
        try (WriteTxn tx = store.beginWrite()) {
            for (int done = 0; done < changes;) {
                int i = (int) random.nextLong(entries);
                if (picked.get(i)) {
                    continue;
                }
                picked.set(i);
                switch (done % 3) {
                    case 0 -> {
                        Workload.missingKey(i, key);
                        workload.value(i, 2, value);
                        tx.put(tree, key, value);
                    }
                    case 1 -> {
                        Workload.presentKey(i, key);
                        tx.delete(tree, key);
                    }
                    default -> {
                        Workload.presentKey(i, key);
                        workload.value(i, 1, value);
                        tx.put(tree, key, value);
                    }
                }
                done++;
            }
            tx.commit();
        }
    }

    private static Result measure(Snapshot a, Snapshot b, Tree tree, long entries, int changes) {
        long[] seen = new long[1];
        DiffVisitor visitor = (name, key, oldValue, newValue) -> seen[0] += key.capacity();
        long start = System.nanoTime();
        DiffStats stats = checked(a.diff(b, tree, visitor), changes);
        long first = System.nanoTime() - start;
        for (long end = System.nanoTime() + WARMUP_NANOS; System.nanoTime() < end;) {
            checked(a.diff(b, tree, visitor), changes);
        }
        long[] nanos = new long[DIFF_RUNS];
        for (int run = 0; run < DIFF_RUNS; run++) {
            start = System.nanoTime();
            checked(a.diff(b, tree, visitor), changes);
            nanos[run] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        TreeStats sa = a.treeStats(tree);
        TreeStats sb = b.treeStats(tree);
        // A scan reads every branch and leaf page of both revisions once.
        long scanPages = sa.branchPages() + sa.leafPages() + sb.branchPages() + sb.leafPages();
        long[] scanNanos = new long[SCAN_RUNS];
        for (int run = 0; run < SCAN_RUNS; run++) {
            start = System.nanoTime();
            long found = mergeScan(a, b, tree);
            scanNanos[run] = System.nanoTime() - start;
            if (found != changes) {
                throw new VerificationException("the merge scan found " + found + " changes, made " + changes);
            }
        }
        Arrays.sort(scanNanos);
        return new Result(entries, changes, sb.depth(), stats.pagesRead(), nanos[DIFF_RUNS / 2], first, scanPages,
                scanNanos[SCAN_RUNS / 2]);
    }

    private static DiffStats checked(DiffStats stats, int changes) {
        if (stats.changes() != changes) {
            throw new VerificationException("the diff found " + stats.changes() + " changes, made " + changes);
        }
        return stats;
    }

    /** Walks both revisions in key order together and counts the keys whose presence or value differs. */
    static long mergeScan(Snapshot a, Snapshot b, Tree tree) {
        long found = 0;
        try (Cursor x = a.cursor(tree); Cursor y = b.cursor(tree)) {
            boolean onX = x.first();
            boolean onY = y.first();
            while (onX || onY) {
                int c = !onX ? 1 : !onY ? -1 : compare(x.key(), y.key());
                if (c < 0) {
                    found++;
                    onX = x.next();
                } else if (c > 0) {
                    found++;
                    onY = y.next();
                } else {
                    if (compare(x.value(), y.value()) != 0) {
                        found++;
                    }
                    onX = x.next();
                    onY = y.next();
                }
            }
        }
        return found;
    }

    private static int compare(DirectBuffer p, DirectBuffer q) {
        int n = Math.min(p.capacity(), q.capacity());
        for (int i = 0; i < n; i++) {
            int d = (p.getByte(i) & 0xFF) - (q.getByte(i) & 0xFF);
            if (d != 0) {
                return d;
            }
        }
        return p.capacity() - q.capacity();
    }
}
