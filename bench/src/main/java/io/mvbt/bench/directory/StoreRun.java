// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.mvbt.bench.Disk;
import io.mvbt.bench.VerificationException;
import io.mvbt.directory.Dn;
import io.mvbt.directory.Entry;

/**
 * One store in its own child JVM: works out the expected results from the generated entries, loads
 * them, verifies every search's entries, prints the complex filters' plans, then measures each
 * search alone and beside the {@link ChurnWriter}, after the same warm-up for every store. Every
 * measured search's count is checked too. Results go to standard output as {@link StoreResults}
 * lines; progress to standard error.
 */
final class StoreRun {
    /** Exit status of a child whose search results differed from the model's. */
    static final int VERIFICATION_FAILED = 3;

    private final DirectoryBenchOptions o;
    private final PrintStream out;
    private final AtomicLong churn = new AtomicLong();

    StoreRun(DirectoryBenchOptions o, PrintStream out) {
        this.o = o;
        this.out = out;
    }

    static DirectoryTarget open(String store, Path dir) {
        return switch (store) {
            case "mvbt" -> new MvbtDirectoryTarget(dir);
            case "sqlite" -> new SqliteDirectoryTarget(dir);
            default -> throw new IllegalArgumentException("unknown store " + store);
        };
    }

    int run() {
        String store = o.child;
        try {
            Files.createDirectories(o.dir);
            DirectoryData data = new DirectoryData(o.entries);
            List<DirectorySearch> searches = DirectorySearch.all(data);
            SearchModel model = new SearchModel(data.schema, searches);
            data.forEach(model::accept);
            for (long k = 0; k < 1000; k++) {
                model.checkOutsideEverySearch(DirectoryData.churn(k));
            }
            for (DirectorySearch s : searches) {
                out.println(StoreResults.line(StoreResults.EXPECTED, s.name(), model.count(s)));
            }
            try (DirectoryTarget target = open(store, o.dir)) {
                out.println(StoreResults.line(StoreResults.SETTINGS, target.settings()));
                load(target, data);
                for (DirectorySearch s : searches) {
                    if (s.isComplexFilter()) {
                        out.println(StoreResults.line(StoreResults.PLAN, s.name(), target.plan(s)));
                    }
                }
                verify(target, searches, model);
                long[] expected = searches.stream().mapToLong(model::count).toArray();
                for (int i = 0; i < searches.size(); i++) {
                    progress("warm-up " + searches.get(i).name());
                    measure(target, searches, i, expected[i], o.warmup, false);
                }
                for (int i = 0; i < searches.size(); i++) {
                    report(searches.get(i), "alone", measure(target, searches, i, expected[i], o.seconds, false));
                    report(searches.get(i), "writer", measure(target, searches, i, expected[i], o.seconds, true));
                }
                verify(target, searches, model);
            } finally {
                Disk.delete(o.dir);
            }
            out.flush();
            return 0;
        } catch (VerificationException e) {
            System.err.println("VERIFICATION FAILED [" + store + "]: " + e.getMessage());
            return VERIFICATION_FAILED;
        } catch (Exception | Error e) {
            System.err.println("FAILED [" + store + "]: " + e);
            e.printStackTrace();
            return 1;
        }
    }

    private void progress(String text) {
        System.err.println("  [" + o.child + "] " + text);
    }

    private void load(DirectoryTarget target, DirectoryData data) {
        long step = Math.max(1, data.total / 10);
        long start = System.nanoTime();
        target.load(data, (n, e) -> {
            if (n % step == 0) {
                progress(String.format("loaded %,d of %,d entries in %.1f s", n, data.total,
                        (System.nanoTime() - start) / 1e9));
            }
        });
        long nanos = System.nanoTime() - start;
        out.println(StoreResults.line(StoreResults.LOAD, data.total, nanos));
        out.println(StoreResults.line(StoreResults.FOOTPRINT, target.bytesOnDisk()));
    }

    /** Runs each search once and compares its entries, attributes and all, with the model's. */
    private void verify(DirectoryTarget target, List<DirectorySearch> searches, SearchModel model) {
        try (DirectoryTarget.Searcher searcher = target.searcher(searches)) {
            for (int i = 0; i < searches.size(); i++) {
                DirectorySearch s = searches.get(i);
                Map<String, Entry> returned = new LinkedHashMap<>();
                long n = searcher.search(i, (dn, attributes) -> {
                    Entry.Builder b = Entry.builder(Dn.parse(dn));
                    attributes.forEach((name, values) -> b.add(name, values.toArray(new String[0])));
                    if (returned.put(dn, b.build()) != null) {
                        throw new VerificationException(target.id() + " " + s.name() + ": " + dn + " returned twice");
                    }
                });
                if (n != returned.size()) {
                    throw new VerificationException(target.id() + " " + s.name() + ": counted " + n + " of "
                            + returned.size() + " entries");
                }
                model.verify(target.id(), s, returned);
                out.println(StoreResults.line(StoreResults.VERIFIED, s.name(), n));
            }
        }
    }

    /**
     * Runs search {@code index} on {@code o.threads} threads for {@code seconds}, with the writer
     * beside them if asked; every search's count must be {@code expected}.
     */
    private StoreResults.Measurement measure(DirectoryTarget target, List<DirectorySearch> searches, int index,
            long expected, double seconds, boolean withWriter) {
        long[] done = new long[o.threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        List<DirectoryTarget.Searcher> searchers = new ArrayList<>();
        for (int t = 0; t < o.threads; t++) {
            searchers.add(target.searcher(searches));
        }
        long duration = (long) (seconds * 1e9);
        ChurnWriter writer = withWriter ? new ChurnWriter(target, o.writerRate, churn) : null;
        long start = System.nanoTime();
        long writerStart = writer == null ? 0 : writer.commits();
        for (int t = 0; t < o.threads; t++) {
            int id = t;
            Thread thread = new Thread(() -> {
                try {
                    DirectoryTarget.Searcher searcher = searchers.get(id);
                    long n = 0;
                    long deadline = start + duration;
                    do {
                        long count = searcher.search(index, null);
                        if (count != expected) {
                            throw new VerificationException(target.id() + " " + searches.get(index).name() + ": "
                                    + count + " entries, expected " + expected
                                    + (withWriter ? " (with the writer running)" : ""));
                        }
                        n++;
                    } while (System.nanoTime() < deadline);
                    done[id] = n;
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "search-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        long nanos = System.nanoTime() - start;
        long commits = writer == null ? 0 : writer.commits() - writerStart;
        if (writer != null) {
            writer.close();
        }
        searchers.forEach(DirectoryTarget.Searcher::close);
        Throwable t = failure.get();
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        long total = 0;
        for (long d : done) {
            total += d;
        }
        return new StoreResults.Measurement(searches.get(index).name(), withWriter ? "writer" : "alone", total,
                total * expected, nanos, commits);
    }

    private void report(DirectorySearch s, String phase, StoreResults.Measurement m) {
        out.println(StoreResults.line(StoreResults.RESULT, s.name(), phase, m.searches(), m.entries(), m.nanos(),
                m.writerCommits()));
        progress(String.format("%-18s %-6s %,10.0f searches/s %,12.0f entries/s%s", s.name(), phase,
                m.searchesPerSecond(), m.entriesPerSecond(),
                m.writerCommits() > 0 ? String.format(", writer %,.0f commits/s", m.writerCommitsPerSecond()) : ""));
    }
}
