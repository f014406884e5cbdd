package io.mvbt.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.mvbt.bench.peers.Peer;

/** Command-line options of the harness, shared by the parent and its child JVMs. */
public final class BenchOptions {
    List<Suite> suites = List.of(Suite.byName("dbbench"));
    long entries = 1_000_000;
    long reads = -1;
    List<Peer> peers = List.of(Peer.values());
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

              --suite S[,S..]     dbbench, history, deleterange, readwhilewriting or all (default dbbench)
              --entries N         entries loaded (default 1000000)
              --reads N           operations of each read phase (default: entries)
              --peers P[,P..]     mvbt,mvbt-redis,lmdb,rocksdb,sqlite,mvstore,xodus,skiplist (default all;
                                  mvbt-redis starts a redis-server of its own)
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
                case "--entries" -> o.entries = parseCount(v);
                case "--reads" -> o.reads = parseCount(v);
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
                case "--warmup" -> o.warmup = parseCount(v);
                case "--dir" -> o.dir = Path.of(v);
                case "--out" -> o.out = Path.of(v);
                case "--heap" -> o.heap = v;
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (o.entries < 1 || o.threads < 1) {
            throw new IllegalArgumentException("--entries and --threads must be positive");
        }
        if (o.reads < 0) {
            o.reads = o.entries;
        }
        if (o.warmup < 0) {
            o.warmup = Math.min(o.entries, Math.max(2000, Math.min(50_000, o.entries / 10)));
        }
        return o;
    }

    /** Accepts 1000000, 1_000_000, 1M, 10k. */
    public static long parseCount(String s) {
        String t = s.replace("_", "").replace(",", "").trim().toLowerCase(java.util.Locale.ROOT);
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
