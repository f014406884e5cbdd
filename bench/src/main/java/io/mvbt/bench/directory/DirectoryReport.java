// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.mvbt.bench.Orchestrator;

/**
 * The directory benchmark's report: per search, searches per second (entries per second) of each
 * store alone and with the writer, the with-writer / alone ratio of each store, and mvbt / SQLite;
 * the writer's commits, the load, the settings, the query plans of the complex filters; and a CSV.
 */
final class DirectoryReport {
    static final double WRITER_TARGET = 0.90;
    static final double PEER_TARGET = 5.0;

    private final DirectoryBenchOptions o;
    private final List<StoreResults> results;
    private final String machine;
    private final String when;
    private final String command;
    private final String mismatch;

    DirectoryReport(DirectoryBenchOptions o, List<StoreResults> results, String machine, String when, String command,
            String mismatch) {
        this.o = o;
        this.results = results;
        this.machine = machine;
        this.when = when;
        this.command = command;
        this.mismatch = mismatch;
    }

    private List<String> searches() {
        Set<String> names = new LinkedHashSet<>();
        for (StoreResults r : results) {
            names.addAll(r.expected.keySet());
        }
        return new ArrayList<>(names);
    }

    private StoreResults store(String id) {
        for (StoreResults r : results) {
            if (r.store.equals(id)) {
                return r;
            }
        }
        return null;
    }

    private long expected(String search) {
        for (StoreResults r : results) {
            Long n = r.expected.get(search);
            if (n != null) {
                return n;
            }
        }
        return -1;
    }

    static double rate(StoreResults r, String search, String phase) {
        StoreResults.Measurement m = r == null ? null : r.measurement(search, phase);
        return m == null ? Double.NaN : m.searchesPerSecond();
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, v >= 100 ? "%,.0f" : v >= 10 ? "%.1f" : "%.2f", v);
    }

    private static String ratio(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, v >= 10 ? "%.1fx" : "%.2fx", v);
    }

    private static String cell(StoreResults r, String search, String phase) {
        StoreResults.Measurement m = r == null ? null : r.measurement(search, phase);
        return m == null ? "-" : num(m.searchesPerSecond()) + " (" + num(m.entriesPerSecond()) + ")";
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "### directory: %,d entries, %d searching thread%s, writer %s%n%n",
                o.entries, o.threads, o.threads == 1 ? "" : "s",
                o.writerRate > 0 ? num(o.writerRate) + " commits/s" : "as fast as it goes"));
        b.append("Machine: ").append(machine).append("  \n");
        b.append("Command: `").append(command).append("`  \n");
        b.append("Date: ").append(when).append("  \n");
        b.append("Child JVM flags (every store): `").append(String.join(" ", Orchestrator.jvmFlags(o.heap)))
                .append("`\n\n");
        b.append(String.format(Locale.ROOT, "Searches/s (entries/s), each search measured %s s after a %s s warm-up, "
                + "alone and while a writer thread adds and deletes entries (one per commit) in the same store. "
                + "Entries are fetched whole (DN and every attribute).%n%n", num(o.seconds), num(o.warmup)));
        StoreResults mvbt = store("mvbt");
        StoreResults sqlite = store("sqlite");
        b.append("| search | entries | mvbt alone | mvbt with writer | mvbt with/alone | sqlite alone | "
                + "sqlite with writer | sqlite with/alone | mvbt/sqlite alone | mvbt/sqlite with writer |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        int writerMet = 0;
        int peerMet = 0;
        int rows = 0;
        for (String s : searches()) {
            double ma = rate(mvbt, s, "alone");
            double mw = rate(mvbt, s, "writer");
            double sa = rate(sqlite, s, "alone");
            double sw = rate(sqlite, s, "writer");
            b.append("| ").append(s).append(" | ").append(String.format(Locale.ROOT, "%,d", expected(s))).append(" | ")
                    .append(cell(mvbt, s, "alone")).append(" | ").append(cell(mvbt, s, "writer")).append(" | ")
                    .append(ratio(mw / ma)).append(" | ").append(cell(sqlite, s, "alone")).append(" | ")
                    .append(cell(sqlite, s, "writer")).append(" | ").append(ratio(sw / sa)).append(" | ")
                    .append(ratio(ma / sa)).append(" | ").append(ratio(mw / sw)).append(" |\n");
            rows++;
            writerMet += mw / ma >= WRITER_TARGET ? 1 : 0;
            peerMet += ma / sa >= PEER_TARGET && mw / sw >= PEER_TARGET ? 1 : 0;
        }
        b.append(String.format(Locale.ROOT, "%nTargets: mvbt with-writer / alone >= %.2f in %d of %d searches; "
                + "mvbt / SQLite >= %.0fx (alone and with the writer) in %d of %d.%n", WRITER_TARGET, writerMet, rows,
                PEER_TARGET, peerMet, rows));
        b.append("\nThe writer's commits/s during each with-writer phase:\n\n| search |");
        results.forEach(r -> b.append(' ').append(r.store).append(" |"));
        b.append("\n|---|");
        results.forEach(r -> b.append("---:|"));
        b.append('\n');
        for (String s : searches()) {
            b.append("| ").append(s).append(" |");
            for (StoreResults r : results) {
                StoreResults.Measurement m = r.measurement(s, "writer");
                b.append(' ').append(m == null ? "-" : num(m.writerCommitsPerSecond())).append(" |");
            }
            b.append('\n');
        }
        b.append("\nLoad (not a target; see the settings for how each store commits it):\n\n"
                + "| store | entries | seconds | entries/s | bytes on disk per entry |\n|---|---:|---:|---:|---:|\n");
        for (StoreResults r : results) {
            double secs = r.loadNanos / 1e9;
            b.append("| ").append(r.store).append(" | ").append(String.format(Locale.ROOT, "%,d", r.loadedEntries))
                    .append(" | ").append(num(secs)).append(" | ").append(num(r.loadedEntries / secs)).append(" | ")
                    .append(r.diskBytes < 0 || r.loadedEntries == 0 ? "-" : num((double) r.diskBytes / r.loadedEntries))
                    .append(" |\n");
        }
        b.append("\nSettings:\n\n| store | settings |\n|---|---|\n");
        for (StoreResults r : results) {
            b.append("| ").append(r.store).append(" | ").append(r.settings.replace("|", "\\|"));
            if (r.failure != null) {
                b.append(" **FAILED: ").append(r.failure).append("**");
            }
            b.append(" |\n");
        }
        b.append('\n').append(mismatch == null
                ? "Verified: each search's entries (DN and every attribute) against a model of the generated data, "
                        + "before and after the measurements, and the count of every measured search; both stores "
                        + "found the same counts.\n"
                : "**VERIFICATION FAILED: " + mismatch + "**\n");
        for (String s : searches()) {
            boolean any = results.stream().anyMatch(r -> r.plans.containsKey(s));
            if (!any) {
                continue;
            }
            b.append("\n#### Plans of ").append(s).append("\n\n");
            for (StoreResults r : results) {
                String plan = r.plans.get(s);
                if (plan != null) {
                    b.append(r.store).append(":\n\n```\n").append(plan.strip()).append("\n```\n\n");
                }
            }
        }
        return b.toString();
    }

    String csv() {
        StringBuilder b = new StringBuilder("store,entries,threads,search,entries_per_search,phase,searches,"
                + "entries_returned,nanos,searches_per_sec,entries_per_sec,writer_commits,writer_commits_per_sec\n");
        for (StoreResults r : results) {
            for (StoreResults.Measurement m : r.measurements) {
                b.append(r.store).append(',').append(o.entries).append(',').append(o.threads).append(',')
                        .append(m.search()).append(',').append(expected(m.search())).append(',').append(m.phase())
                        .append(',').append(m.searches()).append(',').append(m.entries()).append(',').append(m.nanos())
                        .append(',').append(String.format(Locale.ROOT, "%.1f", m.searchesPerSecond())).append(',')
                        .append(String.format(Locale.ROOT, "%.1f", m.entriesPerSecond())).append(',')
                        .append(m.writerCommits()).append(',')
                        .append(String.format(Locale.ROOT, "%.1f", m.writerCommitsPerSecond())).append('\n');
            }
            if (r.failure != null) {
                b.append(r.store).append(',').append(o.entries).append(',').append(o.threads).append(",,,failed,,,,,,,\n");
            }
        }
        return b.toString();
    }
}
