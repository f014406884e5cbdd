// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.mvbt.bench.HarnessOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options of {@code mvbt-bench.jar directory}, shared by the parent and its child JVMs. */
final class DirectoryBenchOptions {
    static final List<String> STORES = List.of("mvbt", "sqlite");

    long entries = 1_000_000;
    double seconds = 5;
    double warmup = 2;
    int threads = 1;
    double writerRate = 1000;
    List<String> stores = STORES;
    Path dir = Path.of(System.getProperty("java.io.tmpdir"));
    Path out = Path.of("bench-results");
    String heap = "4g";
    /** In a child JVM: the one store it runs. */
    String child;
    final List<String> raw = new ArrayList<>();

    /** The command line as picocli reads it; {@link #parse} turns it into options. */
    @Command(name = "java -jar bench/target/mvbt-bench.jar directory", sortOptions = false, description = {
        "mvbt's Directory against SQLite, searched as ApacheDS's SearchPerfIT does (base object, one level,",
        "subtree) and with three filters over the whole suffix; each search alone and beside a writer adding",
        "and deleting entries (one per commit). Every result is verified.", ""})
    static final class Arguments {
        @Option(names = "--entries", paramLabel = "N", description = "entries in the directory (default 1000000; at least 205)")
        String entries = "1000000";

        @Option(names = "--seconds", paramLabel = "S",
                description = "measured length of each search, alone and with the writer (default 5)")
        double seconds = 5;

        @Option(names = "--warmup", paramLabel = "S",
                description = "warm-up length of each search before measuring, every store (default 2)")
        double warmup = 2;

        @Option(names = "--threads", paramLabel = "N", description = "searching threads (default 1)")
        int threads = 1;

        @Option(names = "--writer-rate", paramLabel = "R", description = "the writer's commits per second, the same for"
                + " every store; 0 for as fast as each store goes (default 1000)")
        double writerRate = 1000;

        @Option(names = "--stores", split = ",", paramLabel = "S", description = "mvbt,sqlite (default both)")
        List<String> stores = STORES;

        @Mixin
        HarnessOptions harness = new HarnessOptions();

        /** Set by the parent for the child JVM of one store. */
        @Option(names = "--child", hidden = true)
        String child;
    }

    /** The usage text, as picocli writes it from {@link Arguments}. */
    static String usage() {
        return new CommandLine(new Arguments()).getUsageMessage();
    }

    /**
     * Reads a command line; a wrong one throws {@link IllegalArgumentException} with picocli's
     * message, {@code --help} one with an empty message.
     */
    static DirectoryBenchOptions parse(String[] args) {
        Arguments a = new Arguments();
        a.harness.parse(a, args);
        DirectoryBenchOptions o = new DirectoryBenchOptions();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--child")) {
                i++;
            } else {
                o.raw.add(args[i]);
            }
        }
        o.entries = io.mvbt.bench.BenchOptions.parseCount(a.entries);
        o.seconds = a.seconds;
        o.warmup = a.warmup;
        o.threads = a.threads;
        o.writerRate = a.writerRate;
        List<String> stores = new ArrayList<>();
        for (String name : a.stores) {
            if (!STORES.contains(name.trim())) {
                throw new IllegalArgumentException("unknown store '" + name + "'; known: " + STORES);
            }
            stores.add(name.trim());
        }
        o.stores = stores;
        o.dir = a.harness.dir;
        o.out = a.harness.out;
        o.heap = a.harness.heap;
        o.child = a.child;
        if (o.threads < 1 || o.seconds <= 0 || o.warmup < 0 || o.writerRate < 0) {
            throw new IllegalArgumentException("--threads and --seconds must be positive, --warmup and --writer-rate not negative");
        }
        return o;
    }

    /** The arguments a child JVM gets to run {@code store}. */
    List<String> childArgs(String store, Path storeDir) {
        return List.of("directory", "--child", store, "--entries", Long.toString(entries), "--seconds",
                Double.toString(seconds), "--warmup", Double.toString(warmup), "--threads", Integer.toString(threads),
                "--writer-rate", Double.toString(writerRate), "--dir", storeDir.toString());
    }
}
