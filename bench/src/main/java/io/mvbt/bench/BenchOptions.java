// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.mvbt.bench.peers.Peer;

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

    static final String USAGE = """
            usage: java -jar bench/target/mvbt-bench.jar [options]
                   java -jar bench/target/mvbt-bench.jar jmh [JMH options]
                   java -jar bench/target/mvbt-bench.jar directory [options]  (directory --help)

              --suite S[,S..]     dbbench, history, deleterange, readwhilewriting, fillrandom (dbbench's
                                  phase alone, for the largest sizes) or all (default dbbench)
              --entries N[,N..]   entries loaded (default 1M; 1000000, 1_000_000, 10k and 1M are read);
                                  several sizes run one after the other and add the curve across them
              --reads N           operations of each read phase (default: entries)
              --peers P[,P..]     mvbt,mvbt-redis,lmdb,rocksdb,sqlite,mvstore,xodus,skiplist (default all;
                                  mvbt-redis starts a redis-server of its own), mvbt-shadow (mvbt
                                  with its writer's pages in /dev/shm until their checkpoint) or
                                  mvbt-redo (mvbt with a redo log)
              --threads N         reader threads (default 1)
              --durability D      nosync (commit without fsync, default) or sync (fsync per commit)
              --seconds S         length of each readwhilewriting phase (default 10)
              --warmup N          entries of the warm-up run before measuring (default entries/10, 2000..50000)
              --dir PATH          where the stores' files go (default the temp dir)
              --out PATH          where report.md, CSV and SVG go (default ./bench-results)
              --heap SIZE         -Xmx of each child JVM (default 4g)
            """;

    static BenchOptions parse(String[] args) {
        BenchOptions o = new BenchOptions();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--child")) {
                o.child = true;
                continue;
            }
            if (a.equals("-h") || a.equals("--help")) {
                throw new IllegalArgumentException("");
            }
            if (!a.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
            String v = args[++i];
            o.raw.add(a);
            o.raw.add(v);
            switch (a) {
                case "--suite", "--suites" -> {
                    List<Suite> s = new ArrayList<>();
                    for (String name : v.split(",")) {
                        if (name.equals("all")) {
                            s.addAll(Suite.ALL);
                        } else {
                            s.add(Suite.byName(name));
                        }
                    }
                    o.suites = s;
                }
                case "--entries" -> {
                    List<Long> sizes = new ArrayList<>();
                    for (String size : v.split(",")) {
                        sizes.add(parseCount(size));
                    }
                    o.sizes = sizes;
                    o.entries = sizes.get(0);
                }
                case "--reads" -> {
                    o.reads = parseCount(v);
                    o.readsGiven = true;
                }
                case "--peers", "--peer" -> {
                    List<Peer> p = new ArrayList<>();
                    for (String name : v.split(",")) {
                        p.add(Peer.parse(name));
                    }
                    o.peers = p;
                }
                case "--threads" -> o.threads = Integer.parseInt(v);
                case "--durability" -> o.mode = SyncMode.parse(v);
                case "--seconds" -> o.seconds = Double.parseDouble(v);
                case "--warmup" -> {
                    o.warmup = parseCount(v);
                    o.warmupGiven = true;
                }
                case "--dir" -> o.dir = Path.of(v);
                case "--out" -> o.out = Path.of(v);
                case "--heap" -> o.heap = v;
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
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
