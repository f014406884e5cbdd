// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.Function;

import io.mvbt.history.MessageIdHash;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mvbt history bench}, after INN's tests/lib/history-bench: the same phases on the mvbt
 * history table and on SQLite configured as hissqlite, side by side in one run, with mvbt/SQLite
 * ratios. Phases: write (one commit per entry, a sync every 10,000), final sync and close,
 * read-only reopen, a check of every entry in write order, a walk, random lookups, random checks
 * of Message-IDs never written; then the footprint. Each phase also reports the bytes it caused
 * to be written to storage ({@link BytesWritten}). Every answer is validated: a missing entry, a
 * wrong token or a phantom fails the run. The PRNG is seeded the same for every phase and engine.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "INN's history benchmark: the mvbt history table beside SQLite configured as hissqlite.")
final class HistoryBenchCommand implements Callable<Integer> {
    static final long BASE_TIME = 1_760_000_000L;

    @Option(names = "--entries", description = "Articles written (default: ${DEFAULT-VALUE}).")
    long entries = 10_000_000;

    @Option(names = "--lookups", description = "Random lookups and random missing checks each (default: ${DEFAULT-VALUE}).")
    long lookups = 1_000_000;

    @Option(names = "--sync-every", description = "Writes between syncs (default: ${DEFAULT-VALUE}).")
    long syncEvery = 10_000;

    @Option(names = "--dir", description = "Directory for the files (default: a new temporary directory, deleted after).")
    Path dir;

    @Option(names = "--engines", split = ",", description = "Engines to run: mvbt, sqlite (default: both, or mvbt"
            + " alone if SQLite's driver is not beside the tool).")
    List<String> engines;

    @Option(names = "--seed", description = "PRNG seed (default: ${DEFAULT-VALUE}).")
    long seed = 5;

    // Not picocli's negatable form: with a default of true, its "--no-expiry" left expiry on.
    @Option(names = "--no-expiry", description = "Skip the last phase, which measures mvbt's writer and a reader "
            + "while expiry drops the oldest 10%% of the articles.")
    boolean noExpiry;

    /** mvbt's writer and reader without and with expiry running, if measured. */
    private ExpiryUnderLoad.Half[] expiryResult;

    private final PrintStream out = System.out;

    /** Seconds and operations per phase, in phase order, per engine. */
    private final Map<String, Map<String, double[]>> results = new LinkedHashMap<>();

    @Override
    public Integer call() throws IOException {
        boolean sqlite = sqliteAvailable();
        if (engines == null) {
            engines = sqlite ? List.of("mvbt", "sqlite") : List.of("mvbt");
            if (!sqlite) {
                System.err.println("note: " + NO_SQLITE + "; running mvbt alone");
            }
        } else if (engines.contains("sqlite") && !sqlite) {
            throw new CommandException(NO_SQLITE);
        }
        boolean temporary = dir == null;
        Path base = temporary ? Files.createTempDirectory("mvbt-history-bench") : Files.createDirectories(dir);
        try {
            for (String engine : engines) {
                Path d = Files.createDirectories(base.resolve(engine));
                run(engine, d);
            }
            report();
        } finally {
            if (temporary) {
                DemoCommand.deleteRecursively(base);
            }
        }
        return 0;
    }

    /** Why the SQLite engine cannot run. */
    static final String NO_SQLITE = "the SQLite engine needs SQLite's JDBC driver, which is not in mvbt.jar (it is 13 MB"
            + " of native libraries): the build puts it in tools/target/lib/, beside the jar, where the jar finds it;"
            + " elsewhere, put sqlite-jdbc on the class path";

    /** Whether SQLite's JDBC driver can be loaded (from lib/ beside mvbt.jar, or the class path). */
    static boolean sqliteAvailable() {
        try {
            Class.forName("org.sqlite.JDBC", false, HistoryBenchCommand.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private HistoryBenchEngine open(String engine, Path d) {
        return switch (engine) {
            case "mvbt" -> new MvbtHistoryEngine(d);
            case "sqlite" -> new SqliteHistoryEngine(d);
            default -> throw new IllegalArgumentException("unknown engine '" + engine + "' (mvbt or sqlite)");
        };
    }

    static String messageId(long i) {
        return "<" + i + "." + Long.toHexString(i * 0x9E3779B97F4A7C15L) + "@bench.mvbt.invalid>";
    }

    static byte[] token(long i) {
        byte[] t = new byte[18];
        t[0] = 3;
        t[1] = (byte) (i % 8);
        for (int b = 0; b < 8; b++) {
            t[2 + b] = (byte) (i >>> (56 - 8 * b));
        }
        return t;
    }

    private void run(String name, Path d) {
        Map<String, double[]> phases = new LinkedHashMap<>();
        results.put(name, phases);
        out.printf("%s: %,d entries in %s%n", name, entries, d);
        HistoryBenchEngine engine = open(name, d);
        try {
            Progress progress = new Progress(name + " write");
            phase(phases, "write", () -> {
                for (long i = 0; i < entries; i++) {
                    long arrived = BASE_TIME + i;
                    if (!engine.write(MessageIdHash.of(messageId(i)), arrived, arrived - i % 3600,
                            i % 10 == 0 ? arrived + 10 * 86_400 : 0, token(i))) {
                        throw new IllegalStateException(name + ": entry " + i + " refused as a duplicate");
                    }
                    if ((i + 1) % syncEvery == 0) {
                        engine.sync();
                        progress.update(i + 1, entries);
                    }
                }
                progress.done();
                return entries;
            });
            phase(phases, "sync", () -> {
                engine.sync();
                return 1;
            });
            phase(phases, "reopen", () -> {
                engine.reopenReadOnly();
                return 1;
            });
            phase(phases, "seqcheck", () -> {
                for (long i = 0; i < entries; i++) {
                    if (!engine.check(MessageIdHash.of(messageId(i)))) {
                        throw new IllegalStateException(name + ": entry " + i + " is missing");
                    }
                }
                return entries;
            });
            phase(phases, "walk", () -> {
                byte[][] previous = {null};
                long n = engine.walk((hash, token) -> {
                    if (token == null || (previous[0] != null && Arrays.compareUnsigned(previous[0], hash) >= 0)) {
                        throw new IllegalStateException(name + ": walk out of order or without a token");
                    }
                    previous[0] = hash;
                });
                if (n != entries) {
                    throw new IllegalStateException(name + ": walk saw " + n + " entries of " + entries);
                }
                return n;
            });
            phase(phases, "randlookup", () -> {
                SplittableRandom random = new SplittableRandom(seed);
                for (long j = 0; j < lookups; j++) {
                    long i = random.nextLong(entries);
                    if (!Arrays.equals(token(i), engine.lookupToken(MessageIdHash.of(messageId(i))))) {
                        throw new IllegalStateException(name + ": entry " + i + " has a wrong token or none");
                    }
                }
                return lookups;
            });
            phase(phases, "missingcheck", () -> {
                SplittableRandom random = new SplittableRandom(seed);
                for (long j = 0; j < lookups; j++) {
                    long i = entries + random.nextLong(Long.MAX_VALUE - entries);
                    if (engine.check(MessageIdHash.of(messageId(i)))) {
                        throw new IllegalStateException(name + ": found Message-ID " + i + ", never written");
                    }
                }
                return lookups;
            });
            long bytes = engine.footprint();
            phases.put("footprint", new double[] {bytes, entries});
            out.printf("  footprint %,d bytes (%.1f bytes per entry)%n", bytes, (double) bytes / entries);
            if (engine instanceof MvbtHistoryEngine mvbt && !noExpiry) {
                long writes = Math.max(10_000, Math.min(200_000, entries / 20));
                ExpiryUnderLoad.Half[] halves = new ExpiryUnderLoad(mvbt.writable(), entries, out).run(writes);
                expiryResult = halves;
            }
        } finally {
            engine.close();
        }
    }

    private interface Body {
        long run();
    }

    private void phase(Map<String, double[]> phases, String phase, Body body) {
        long written = BytesWritten.now();
        long start = System.nanoTime();
        long ops = body.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        phases.put(phase, new double[] {seconds, ops});
        out.printf("  %-12s %,12d ops in %8.2f s = %,12.0f ops/s", phase, ops, seconds, ops / seconds);
        long after = BytesWritten.now();
        if (written >= 0 && after > written) {
            out.printf("; %,d bytes written to storage (%,.0f per op)", after - written, (after - written) / (double) ops);
        }
        out.println();
    }

    private void report() {
        List<String> names = new ArrayList<>(results.keySet());
        Map<String, double[]> first = results.get(names.get(0));
        out.printf("%nhistory bench, %,d entries, %,d lookups%n", entries, lookups);
        StringBuilder header = new StringBuilder(String.format("%-12s", "phase"));
        for (String n : names) {
            header.append(String.format(" %16s", n + " ops/s"));
        }
        boolean ratio = names.contains("mvbt") && names.contains("sqlite");
        if (ratio) {
            header.append(String.format(" %14s", "mvbt/sqlite"));
        }
        out.println(header);
        StringBuilder csvHead = new StringBuilder("entries");
        StringBuilder csv = new StringBuilder(Long.toString(entries));
        for (String phase : first.keySet()) {
            StringBuilder row = new StringBuilder(String.format("%-12s", phase));
            Function<String, Double> rate = n -> {
                double[] r = results.get(n).get(phase);
                return phase.equals("footprint") ? r[0] : r[1] / r[0];
            };
            for (String n : names) {
                double v = rate.apply(n);
                row.append(String.format(phase.equals("footprint") ? " %,14.0f B" : " %,16.0f", v));
                csvHead.append(',').append(n).append('_').append(phase);
                csv.append(',').append(String.format("%.1f", v));
            }
            if (ratio) {
                double r = rate.apply("mvbt") / rate.apply("sqlite");
                row.append(String.format(" %13.2fx", r));
                csvHead.append(",ratio_").append(phase);
                csv.append(',').append(String.format("%.3f", r));
            }
            out.println(row);
        }
        out.println("(footprint: bytes on disk; its ratio below 1 means mvbt is smaller)");
        if (expiryResult != null) {
            ExpiryUnderLoad.Half alone = expiryResult[0];
            ExpiryUnderLoad.Half during = expiryResult[1];
            out.printf("expiry of 10%% under load (mvbt): writer %,.0f/s during expiry vs %,.0f/s without = %.2fx; "
                    + "reader %,.0f vs %,.0f lookups/s, lookup p50/p99/p99.9/worst %s vs %s%n", during.writeRate(),
                    alone.writeRate(), during.writeRate() / alone.writeRate(), during.lookupRate(), alone.lookupRate(),
                    during.spread(), alone.spread());
        }
        out.println("csv: " + csvHead);
        out.println("csv: " + csv);
    }
}
