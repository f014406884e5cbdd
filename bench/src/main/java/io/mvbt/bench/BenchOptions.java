// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.mvbt.bench.peers.Peer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Command-line options of the harness, shared by the parent and its child JVMs. */
public final class BenchOptions {
    List<Suite> suites = List.of(Suite.byName("dbbench"));
    /** Entries of this run; with several sizes ({@link #sizes}), of the size being run. */
    long entries = 1_000_000;
    /** Every size to run, in order (--entries 1M,10M): one report per size, and the curve across them. */
    List<Long> sizes = List.of(1_000_000L);
    long reads = -1;
    /** Whether --reads and --warmup were given, or follow the size. */
    private boolean readsGiven;
    private boolean warmupGiven;
    List<Peer> peers = Peer.defaults();
    int threads = 1;
    SyncMode mode = SyncMode.NOSYNC;
    double seconds = 10;
    long warmup = -1;
    Path dir = Path.of(System.getProperty("java.io.tmpdir"));
    Path out = Path.of("bench-results");
    String heap = "4g";
    boolean child;
    List<String> raw = new ArrayList<>();

    /** The command line as picocli reads it; {@link #parse} turns it into options. */
    @Command(name = "java -jar bench/target/mvbt-bench.jar", sortOptions = false,
            footerHeading = "%nOther benchmarks:%n",
            footer = {"  java -jar bench/target/mvbt-bench.jar jmh [JMH options]",
                "  java -jar bench/target/mvbt-bench.jar directory [options]  (directory --help)",
                "  java -jar bench/target/mvbt-bench.jar diff [--entries N] [--changes K]  (revision diff against a merge scan)"})
    static final class Arguments {
        @Option(names = {"--suite", "--suites"}, split = ",", paramLabel = "S",
                description = "dbbench, history, deleterange, readwhilewriting, fillrandom (dbbench's phase alone,"
                        + " for the largest sizes) or all (default dbbench)")
        List<String> suites = List.of("dbbench");

        @Option(names = "--entries", split = ",", paramLabel = "N",
                description = "entries loaded (default 1M; 1000000, 1_000_000, 10k and 1M are read); several sizes"
                        + " run one after the other and add the curve across them")
        List<String> entries = List.of("1M");

        @Option(names = "--reads", paramLabel = "N", description = "operations of each read phase (default: entries)")
        String reads;

        @Option(names = {"--peers", "--peer"}, split = ",", paramLabel = "P",
                description = "mvbt,mvbt-redis,lmdb,rocksdb,sqlite,mvstore,xodus,skiplist (default all; mvbt-redis"
                        + " starts a redis-server of its own), mvbt-shadow (mvbt with its writer's pages in /dev/shm"
                        + " until their checkpoint) or mvbt-redo (mvbt with a redo log)")
        List<String> peers;

        @Option(names = "--threads", paramLabel = "N", description = "reader threads (default 1)")
        int threads = 1;

        @Option(names = "--durability", paramLabel = "D",
                description = "nosync (commit without fsync, default) or sync (fsync per commit)")
        String durability = "nosync";

        @Option(names = "--seconds", paramLabel = "S", description = "length of each readwhilewriting phase (default 10)")
        double seconds = 10;

        @Option(names = "--warmup", paramLabel = "N",
                description = "entries of the warm-up run before measuring (default entries/10, 2000..50000)")
        String warmup;

        @Mixin
        HarnessOptions harness = new HarnessOptions();

        /** Set by the parent for the child JVMs it starts. */
        @Option(names = "--child", hidden = true)
        boolean child;
    }

    /** The usage text, as picocli writes it from {@link Arguments}. */
    static String usage() {
        return new CommandLine(new Arguments()).getUsageMessage();
    }

    /**
     * Reads a command line; a wrong one throws {@link IllegalArgumentException} with picocli's
     * message, {@code --help} one with an empty message.
     */
    static BenchOptions parse(String[] args) {
        Arguments a = new Arguments();
        a.harness.parse(a, args);
        BenchOptions o = new BenchOptions();
        o.child = a.child;
        for (String arg : args) {
            if (!arg.equals("--child")) {
                o.raw.add(arg);
            }
        }
        List<Suite> suites = new ArrayList<>();
        for (String name : a.suites) {
            if (name.equals("all")) {
                suites.addAll(Suite.ALL);
            } else {
                suites.add(Suite.byName(name));
            }
        }
        o.suites = suites;
        List<Long> sizes = new ArrayList<>();
        for (String size : a.entries) {
            sizes.add(parseCount(size));
        }
        o.sizes = sizes;
        o.entries = sizes.get(0);
        if (a.reads != null) {
            o.reads = parseCount(a.reads);
            o.readsGiven = true;
        }
        if (a.peers != null) {
            List<Peer> p = new ArrayList<>();
            for (String name : a.peers) {
                p.add(Peer.parse(name));
            }
            o.peers = p;
        }
        o.threads = a.threads;
        o.mode = SyncMode.parse(a.durability);
        o.seconds = a.seconds;
        if (a.warmup != null) {
            o.warmup = parseCount(a.warmup);
            o.warmupGiven = true;
        }
        o.dir = a.harness.dir;
        o.out = a.harness.out;
        o.heap = a.harness.heap;
        if (o.sizes.stream().anyMatch(n -> n < 1) || o.threads < 1) {
            throw new IllegalArgumentException("--entries and --threads must be positive");
        }
        return o.at(o.entries);
    }

    /** These options for a run of {@code n} entries: reads and warm-up follow the size unless given. */
    BenchOptions at(long n) {
        BenchOptions o = new BenchOptions();
        o.suites = suites;
        o.entries = n;
        o.sizes = sizes;
        o.readsGiven = readsGiven;
        o.warmupGiven = warmupGiven;
        o.reads = readsGiven ? reads : n;
        o.warmup = warmupGiven ? warmup : Math.min(n, Math.max(2000, Math.min(50_000, n / 10)));
        o.peers = peers;
        o.threads = threads;
        o.mode = mode;
        o.seconds = seconds;
        o.dir = dir;
        o.out = out;
        o.heap = heap;
        o.child = child;
        o.raw = raw;
        return o;
    }

    /** Accepts 1000000, 1_000_000, 1M, 10k (a comma separates sizes). */
    public static long parseCount(String s) {
        String t = s.replace("_", "").trim().toLowerCase(java.util.Locale.ROOT);
        long unit = 1;
        if (t.endsWith("k")) {
            unit = 1_000;
        } else if (t.endsWith("m")) {
            unit = 1_000_000;
        }
        if (unit != 1) {
            t = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(t) * unit;
    }
}
