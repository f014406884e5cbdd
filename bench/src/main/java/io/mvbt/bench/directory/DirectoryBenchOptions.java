// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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

    static final String USAGE = """
            usage: java -jar bench/target/mvbt-bench.jar directory [options]

            mvbt's Directory against SQLite, searched as ApacheDS's SearchPerfIT does (base object,
            one level, subtree) and with three filters over the whole suffix; each search alone and beside
            a writer adding and deleting entries (one per commit). Every result is verified.

              --entries N       entries in the directory (default 1000000; at least 205)
              --seconds S       measured length of each search, alone and with the writer (default 5)
              --warmup S        warm-up length of each search before measuring, every store (default 2)
              --threads N       searching threads (default 1)
              --writer-rate R   the writer's commits per second, the same for every store; 0 for as
                                fast as each store goes (default 1000)
              --stores S[,S]    mvbt,sqlite (default both)
              --dir PATH        where the stores' files go (default the temp dir)
              --out PATH        where directory.md and directory.csv go (default ./bench-results)
              --heap SIZE       -Xmx of each child JVM (default 4g)
            """;

    static DirectoryBenchOptions parse(String[] args) {
        DirectoryBenchOptions o = new DirectoryBenchOptions();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                throw new IllegalArgumentException("");
            }
            if (!a.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
            String v = args[++i];
            if (!a.equals("--child")) {
                o.raw.add(a);
                o.raw.add(v);
            }
            switch (a) {
                case "--entries" -> o.entries = io.mvbt.bench.BenchOptions.parseCount(v);
                case "--seconds" -> o.seconds = Double.parseDouble(v);
                case "--warmup" -> o.warmup = Double.parseDouble(v);
                case "--threads" -> o.threads = Integer.parseInt(v);
                case "--writer-rate" -> o.writerRate = Double.parseDouble(v);
                case "--stores" -> {
                    List<String> s = new ArrayList<>();
                    for (String name : v.split(",")) {
                        if (!STORES.contains(name.trim())) {
                            throw new IllegalArgumentException("unknown store '" + name + "'; known: " + STORES);
                        }
                        s.add(name.trim());
                    }
                    o.stores = s;
                }
                case "--dir" -> o.dir = Path.of(v);
                case "--out" -> o.out = Path.of(v);
                case "--heap" -> o.heap = v;
                case "--child" -> o.child = v;
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
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
