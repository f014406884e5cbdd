// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

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

import io.mvbt.bench.peers.Peer;

/**
 * The parent: runs each store in a JVM of its own, all with the same flags, one after the other,
 * then writes the report (markdown, CSV, SVG of the mvbt/peer ratios).
 */
public final class Orchestrator {
    /** The flags every child JVM gets, whichever store it runs. */
    public static List<String> jvmFlags(String heap) {
        return List.of("-Xms" + heap, "-Xmx" + heap,
                "-XX:+UseG1GC");
    }

    private Orchestrator() {
    }

    /** Runs everything; returns the exit status (non-zero if any store failed or misread). */
    static int run(BenchOptions o) {
        String machine = Machine.describe();
        String when = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        String command = "java -jar bench/target/mvbt-bench.jar " + String.join(" ", o.raw);
        Path work = o.dir.resolve("mvbt-bench-" + ProcessHandle.current().pid());
        StringBuilder all = new StringBuilder();
        all.append("Machine: ").append(machine).append("  \n");
        String pageTouch = pageTouch(o.dir);
        System.err.println("page touch: " + pageTouch);
        all.append("Page touch: ").append(pageTouch).append("  \n");
        all.append("Command: `").append(command).append("`  \n");
        all.append("Date: ").append(when).append("  \n");
        all.append("Child JVM flags (every store): `").append(String.join(" ", jvmFlags(o.heap))).append("`\n\n");
        int status = 0;
        List<Report> reports = new ArrayList<>();
        try {
            Files.createDirectories(o.out);
            for (long size : o.sizes) {
                BenchOptions at = o.at(size);
                Path out = o.sizes.size() == 1 ? o.out : o.out.resolve(Curve.label(size));
                Files.createDirectories(out);
                for (Suite suite : o.suites) {
                    List<PeerRun> runs = new ArrayList<>();
                    for (Peer peer : o.peers) {
                        System.err.println("== " + suite.name() + " / " + peer.id() + " / " + Curve.label(size));
                        PeerRun run = runChild(at, suite, peer, work.resolve(suite.name() + "-" + peer.id()));
                        runs.add(run);
                        if (run.failure != null) {
                            status = 1;
                            System.err.println("!! " + peer.id() + ": " + run.failure);
                        }
                    }
                    Report report = new Report(suite, at, runs);
                    reports.add(report);
                    String md = report.markdown();
                    System.out.println(md);
                    all.append(md).append('\n');
                    Files.writeString(out.resolve(suite.name() + ".md"), md);
                    Files.writeString(out.resolve(suite.name() + ".csv"), report.csv());
                    Files.writeString(out.resolve(suite.name() + "-ratios.svg"), new RatioChart(report).svg());
                }
            }
            if (o.sizes.size() > 1) {
                Curve curve = new Curve(reports);
                String md = curve.markdown();
                System.out.println(md);
                all.append(md).append('\n');
                Files.writeString(o.out.resolve("curve.md"), md);
                for (Map.Entry<String, String> chart : curve.charts().entrySet()) {
                    Files.writeString(o.out.resolve(chart.getKey() + "-curve.svg"), chart.getValue());
                }
            }
            Files.writeString(o.out.resolve("report.md"), all.toString());
            System.err.println("report, CSV and SVG in " + o.out.toAbsolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            Disk.delete(work);
        }
        return status;
    }

    /** What the machine charges for a store to a page cleaned by writeback, or why it is unknown. */
    private static String pageTouch(Path dir) {
        try {
            return PageTouchProbe.run(dir).describe();
        } catch (IOException | RuntimeException e) {
            return "not measured (" + e + ")";
        }
    }

    private static PeerRun runChild(BenchOptions o, Suite suite, Peer peer, Path dir) {
        PeerRun run = new PeerRun(peer);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags(o.heap));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.add("--child");
        cmd.addAll(List.of("--suite", suite.name(), "--peers", peer.id(), "--entries", Long.toString(o.entries),
                "--reads", Long.toString(o.reads), "--threads", Integer.toString(o.threads), "--durability",
                o.mode.label(), "--seconds", Double.toString(o.seconds), "--warmup", Long.toString(o.warmup), "--dir",
                dir.toString()));
        try {
            Files.createDirectories(dir);
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            p.getOutputStream().close();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Object parsed = Protocol.parse(line);
                    if (parsed instanceof Protocol.Timing t) {
                        run.timings.add(t);
                    } else if (parsed instanceof Protocol.Footprint f) {
                        run.footprints.add(f);
                    } else if (parsed instanceof Protocol.Latency l) {
                        run.latencies.add(l);
                    } else if (parsed instanceof Protocol.Cost c) {
                        run.costs.add(c);
                    } else if (parsed instanceof String[] s) {
                        if (s[0].equals(Protocol.SETTING)) {
                            run.settings = s[1];
                        } else {
                            run.notes.add(s[1]);
                        }
                    } else {
                        System.err.println("  [" + peer.id() + "] " + line);
                    }
                }
            }
            int exit = p.waitFor();
            if (exit == ChildRunner.VERIFICATION_FAILED) {
                run.failure = "verification failed (see the child's output above)";
            } else if (exit != 0) {
                run.failure = "child JVM exited with status " + exit;
            }
        } catch (IOException e) {
            run.failure = "could not run the child JVM: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            run.failure = "interrupted";
        } finally {
            Disk.delete(dir);
        }
        return run;
    }
}
