// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.StoreStats;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The main job: creates a store in a temporary directory, loads entries, then reads every one back
 * on a snapshot while a writer keeps committing, and reports what it did and how fast.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Load entries into a fresh store, then read them back on a snapshot while a writer commits.")
final class DemoCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--entries", description = "Entries to load (default: ${DEFAULT-VALUE}).")
    long entries = 1_000_000;

    @Option(names = "--batch", description = "Entries per commit while loading (default: ${DEFAULT-VALUE}).")
    int batch = 10_000;

    @Option(names = "--dir", description = "Directory for the store (default: a new temporary directory, deleted after).")
    Path dir;

    @Option(names = "--durability", description = "SYNC or NORMAL (default: ${DEFAULT-VALUE}).")
    Durability durability = Durability.NORMAL;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        if (entries < 1 || batch < 1) {
            // A batch of 0 would commit empty transactions for ever.
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--entries and --batch must be at least 1 (got " + entries + " and " + batch + ")");
        }
        boolean temporary = dir == null;
        Path directory = temporary ? Files.createTempDirectory("mvbt-demo") : Files.createDirectories(dir);
        Path file = directory.resolve("demo.mvbt");
        try {
            run(file);
        } finally {
            if (temporary) {
                deleteRecursively(directory);
            }
        }
        return 0;
    }

    private void run(Path file) throws InterruptedException {
        out.printf("store %s, %,d entries (16-byte keys, 100-byte values), %s commits%n", file, entries, durability);
        try (Store store = Store.open(file, StoreOptions.defaults().durability(durability))) {
            Tree tree = load(store);
            readWhileWriting(store, tree);
            StoreStats stats = store.stats();
            out.printf("store: revision %,d, %,d pages of %d bytes (%,d in use, %,d free, %,d waiting for readers)%n",
                    stats.revision(), stats.pagesInFile(), stats.pageSize(), stats.pagesInUse(), stats.pagesFree(),
                    stats.pagesWaitingForReaders());
            try (Snapshot s = store.beginRead()) {
                var t = s.treeStats(tree);
                out.printf("tree '%s': %,d entries, depth %d, %,d leaf and %,d branch pages, leaves %.0f%% full%n",
                        t.name(), t.entries(), t.depth(), t.leafPages(), t.branchPages(), t.fill() * 100);
            }
            long start = System.nanoTime();
            var report = store.check();
            out.printf("integrity check: %s, %,d pages in %.2f s%n", report.ok() ? "clean" : report.problems(),
                    report.pagesChecked(), (System.nanoTime() - start) / 1e9);
            if (!report.ok()) {
                throw new IllegalStateException("integrity check failed");
            }
        }
        out.printf("file size after close: %,d bytes (%.1f bytes per entry)%n", fileSize(file),
                fileSize(file) / (double) entries);
    }

    private Tree load(Store store) {
        long start = System.nanoTime();
        UnsafeBuffer key = new UnsafeBuffer(new byte[16]);
        UnsafeBuffer value = new UnsafeBuffer(new byte[100]);
        Tree tree;
        try (WriteTxn tx = store.beginWrite()) {
            tree = tx.createTree("demo");
            tx.commit();
        }
        for (long done = 0; done < entries;) {
            try (WriteTxn tx = store.beginWrite()) {
                long end = Math.min(entries, done + batch);
                for (; done < end; done++) {
                    fill(key, value, done);
                    tx.put(tree, key, value);
                }
                tx.commit();
            }
        }
        store.sync();
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf("load: %,d entries in %.2f s = %,.0f entries/s (%,d per commit, then a checkpoint)%n", entries,
                seconds, entries / seconds, batch);
        return tree;
    }

    /** Entry i: a key that scatters i over the key space, and a value that names i. */
    private static void fill(UnsafeBuffer key, UnsafeBuffer value, long i) {
        long scrambled = i * 0x9E3779B97F4A7C15L;
        key.putLong(0, Long.reverseBytes(scrambled));
        key.putLong(8, Long.reverseBytes(i));
        value.putLong(0, i);
        value.setMemory(8, 92, (byte) i);
    }

    private void readWhileWriting(Store store, Tree tree) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong commits = new AtomicLong();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            UnsafeBuffer key = new UnsafeBuffer(new byte[16]);
            UnsafeBuffer value = new UnsafeBuffer(new byte[100]);
            SplittableRandom random = new SplittableRandom(1);
            try {
                while (!stop.get()) {
                    try (WriteTxn tx = store.beginWrite()) {
                        long i = random.nextLong(entries);
                        fill(key, value, i);
                        value.putLong(8, commits.get());
                        tx.put(tree, key, value);
                        tx.commit();
                    }
                    commits.incrementAndGet();
                }
            } catch (Throwable t) {
                writerFailure.set(t);
            }
        }, "demo-writer");
        long start;
        long found = 0;
        try (Snapshot snapshot = store.beginRead()) {
            writer.start();
            start = System.nanoTime();
            UnsafeBuffer key = new UnsafeBuffer(new byte[16]);
            UnsafeBuffer expected = new UnsafeBuffer(new byte[100]);
            UnsafeBuffer value = new UnsafeBuffer(0, 0);
            SplittableRandom random = new SplittableRandom(2);
            for (long n = 0; n < entries; n++) {
                long i = random.nextLong(entries);
                fill(key, expected, i);
                if (!snapshot.get(tree, key, value) || value.getLong(0) != i || value.getLong(8) != expected.getLong(8)) {
                    throw new IllegalStateException("snapshot of revision " + snapshot.revision()
                            + " lost or changed entry " + i);
                }
                found++;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        writer.join();
        if (writerFailure.get() != null) {
            throw new IllegalStateException("writer failed", writerFailure.get());
        }
        out.printf("read: %,d random lookups on one snapshot in %.2f s = %,.0f lookups/s, every value as loaded%n",
                found, seconds, found / seconds);
        out.printf("  meanwhile the writer committed %,d one-entry revisions = %,.0f commits/s (%s)%n", commits.get(),
                commits.get() / seconds, durability);
    }

    private static long fileSize(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    static void deleteRecursively(Path directory) {
        try (var paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temporary directory: nothing more to do.
        }
    }
}
