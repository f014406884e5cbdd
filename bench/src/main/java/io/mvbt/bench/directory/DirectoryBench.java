// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.mvbt.bench.BenchMain;
import io.mvbt.bench.Disk;
import io.mvbt.bench.Machine;
import io.mvbt.bench.Orchestrator;

/**
 * {@code mvbt-bench.jar directory}: the directory benchmark (see {@link DirectoryBenchOptions#usage()}).
 * The parent runs each store in a JVM of its own with the harness's flags, one after the other,
 * checks that both found the same counts, and writes {@code directory.md} and {@code directory.csv}.
 */
public final class DirectoryBench {
    private DirectoryBench() {
    }

    /** Runs the command; returns the exit status (non-zero if a store failed or a count differed). */
    public static int main(String[] args) {
        DirectoryBenchOptions o;
        try {
            o = DirectoryBenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println(e.getMessage());
            }
            System.err.print(DirectoryBenchOptions.usage());
            return 2;
        }
        return o.child != null ? new StoreRun(o, System.out).run() : run(o);
    }

    static int run(DirectoryBenchOptions o) {
        String when = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        Path work = o.dir.resolve("mvbt-dirbench-" + ProcessHandle.current().pid());
        List<StoreResults> results = new ArrayList<>();
        try {
            for (String store : o.stores) {
                System.err.println("== directory / " + store);
                results.add(runChild(o, store, work.resolve(store)));
            }
        } finally {
            Disk.delete(work);
        }
        String mismatch = compareCounts(results);
        DirectoryReport report = new DirectoryReport(o, results, Machine.describe(), when,
                "java -jar bench/target/mvbt-bench.jar directory " + String.join(" ", o.raw), mismatch);
        String md = report.markdown();
        System.out.println(md);
        try {
            Files.createDirectories(o.out);
            Files.writeString(o.out.resolve("directory.md"), md);
            Files.writeString(o.out.resolve("directory.csv"), report.csv());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.err.println("report and CSV in " + o.out.toAbsolutePath());
        boolean failed = mismatch != null || results.stream().anyMatch(r -> r.failure != null);
        return failed ? 1 : 0;
    }

    /** Null if every store verified every search with the same count, else what differs. */
    static String compareCounts(List<StoreResults> results) {
        StoreResults first = results.get(0);
        for (StoreResults r : results) {
            if (r.failure != null) {
                return r.store + " failed: " + r.failure;
            }
            if (r.verified.isEmpty() || !r.verified.equals(r.expected)) {
                return r.store + " verified " + r.verified + ", expected " + r.expected;
            }
            for (Map.Entry<String, Long> e : r.verified.entrySet()) {
                if (!Objects.equals(e.getValue(), first.verified.get(e.getKey()))) {
                    return e.getKey() + ": " + r.store + " found " + e.getValue() + " entries, " + first.store
                            + " " + first.verified.get(e.getKey());
                }
            }
        }
        return null;
    }

    private static StoreResults runChild(DirectoryBenchOptions o, String store, Path dir) {
        StoreResults results = new StoreResults(store);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(Orchestrator.jvmFlags(o.heap));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.addAll(o.childArgs(store, dir));
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            p.getOutputStream().close();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (!results.accept(line)) {
                        System.err.println("  [" + store + "] " + line);
                    }
                }
            }
            int exit = p.waitFor();
            if (exit == StoreRun.VERIFICATION_FAILED) {
                results.failure = "verification failed (see the child's output above)";
            } else if (exit != 0) {
                results.failure = "child JVM exited with status " + exit;
            }
        } catch (IOException e) {
            results.failure = "could not run the child JVM: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            results.failure = "interrupted";
        }
        return results;
    }
}
