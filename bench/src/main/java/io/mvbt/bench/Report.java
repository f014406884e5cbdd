// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;

import io.mvbt.bench.peers.Peer;

/**
 * One suite's results across the stores: markdown tables (throughput, mvbt/peer ratios,
 * footprint, settings) and a CSV. A ratio is mvbt's rate divided by the peer's: above 1, mvbt is
 * faster.
 */
final class Report {
    final Suite suite;
    final BenchOptions options;
    final List<PeerRun> runs;

    Report(Suite suite, BenchOptions options, List<PeerRun> runs) {
        this.suite = suite;
        this.options = options;
        this.runs = runs;
    }

    PeerRun mvbt() {
        for (PeerRun r : runs) {
            if (r.peer == Peer.MVBT) {
                return r;
            }
        }
        return null;
    }

    List<PeerRun> others() {
        List<PeerRun> o = new ArrayList<>();
        for (PeerRun r : runs) {
            if (r.peer != Peer.MVBT) {
                o.add(r);
            }
        }
        return o;
    }

    /** Phases in suite order, then any others a store reported. */
    List<String> phases() {
        Set<String> p = new LinkedHashSet<>();
        for (String s : suite.phases()) {
            for (PeerRun r : runs) {
                if (r.timing(s) != null) {
                    p.add(s);
                }
            }
        }
        for (PeerRun r : runs) {
            r.timings.forEach(t -> p.add(t.phase()));
        }
        return new ArrayList<>(p);
    }

    List<String> footprintPoints() {
        Set<String> p = new LinkedHashSet<>();
        for (PeerRun r : runs) {
            r.footprints.forEach(f -> p.add(f.after()));
        }
        return new ArrayList<>(p);
    }

    /** mvbt's rate over the peer's for {@code phase}, or NaN. */
    double ratio(String phase, PeerRun peer) {
        PeerRun m = mvbt();
        if (m == null) {
            return Double.NaN;
        }
        Protocol.Timing a = m.timing(phase);
        Protocol.Timing b = peer.timing(phase);
        if (a == null || b == null || b.opsPerSecond() == 0) {
            return Double.NaN;
        }
        return a.opsPerSecond() / b.opsPerSecond();
    }

    /** mvbt's bytes per entry over the peer's, or NaN. */
    double footprintRatio(String after, PeerRun peer) {
        PeerRun m = mvbt();
        if (m == null) {
            return Double.NaN;
        }
        Protocol.Footprint a = m.footprint(after);
        Protocol.Footprint b = peer.footprint(after);
        if (a == null || b == null || a.bytesPerEntry() < 0 || b.bytesPerEntry() <= 0) {
            return Double.NaN;
        }
        return a.bytesPerEntry() / b.bytesPerEntry();
    }

    private long opsOf(String phase) {
        for (PeerRun r : runs) {
            Protocol.Timing t = r.timing(phase);
            if (t != null) {
                return t.ops();
            }
        }
        return 0;
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return String.format(Locale.ROOT, v >= 100 ? "%,.0f" : v >= 10 ? "%.1f" : "%.2f", v);
    }

    static String ratioText(double r) {
        if (Double.isNaN(r)) {
            return "-";
        }
        return String.format(Locale.ROOT, r >= 10 ? "%.1fx" : r >= 0.1 ? "%.2fx" : "%.2gx", r);
    }

    private static String micros(long nanos) {
        return num(nanos / 1e3);
    }

    private static String costText(Protocol.Cost c, Protocol.Timing t) {
        if (c == null) {
            return "-";
        }
        String faults = c.minorFaults() < 0 ? "faults n/a"
                : t == null || t.ops() == 0 ? c.minorFaults() + " faults" : perOp((double) c.minorFaults() / t.ops());
        if (c.majorFaults() > 0) {
            faults += " (" + c.majorFaults() + " major)";
        }
        return faults + ", " + c.gcCount() + " GC " + c.gcMillis() + " ms";
    }

    private static String perOp(double v) {
        return v == 0 || v >= 0.01 ? num(v) : String.format(Locale.ROOT, "%.4f", v);
    }

    /** Phases some store reported in the stream {@code of} gives, in order. */
    private List<String> phasesOf(Function<PeerRun, Stream<String>> of) {
        LinkedHashSet<String> p = new LinkedHashSet<>();
        runs.forEach(r -> of.apply(r).forEach(p::add));
        return new ArrayList<>(p);
    }

    /**
     * Appends a markdown table after its caption: a row per entry of {@code rows} (labelled by
     * {@code label}), a column per run (headed by {@code head}), each cell from {@code cell}.
     */
    private static void table(StringBuilder b, String caption, String corner, List<String> rows,
            Function<String, String> label, List<PeerRun> columns, Function<PeerRun, String> head,
            BiFunction<String, PeerRun, String> cell) {
        if (b.length() > 0 && !b.toString().endsWith("\n\n")) {
            b.append('\n');
        }
        b.append(caption).append("\n\n| ").append(corner).append(" |");
        columns.forEach(r -> b.append(' ').append(head.apply(r)).append(" |"));
        b.append("\n|---|");
        columns.forEach(r -> b.append("---:|"));
        b.append('\n');
        for (String row : rows) {
            b.append("| ").append(label.apply(row)).append(" |");
            columns.forEach(r -> b.append(' ').append(cell.apply(row, r)).append(" |"));
            b.append('\n');
        }
    }

    String title() {
        return String.format(Locale.ROOT, "%s: %,d entries, durability %s, %d reader thread%s", suite.name(),
                options.entries, options.mode.label(), options.threads, options.threads == 1 ? "" : "s");
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        List<String> phases = phases();
        b.append("### ").append(title()).append("\n\n");
        table(b, "Throughput: ops/s (µs/op). A phase's operation count is in parentheses after its name.", "phase",
                phases, p -> p + String.format(Locale.ROOT, " (%,d)", opsOf(p)), runs, r -> r.peer.id(), (p, r) -> {
                    Protocol.Timing t = r.timing(p);
                    return t == null ? "-" : num(t.opsPerSecond()) + " (" + num(t.microsPerOp()) + ")";
                });
        List<PeerRun> others = others();
        boolean ratios = mvbt() != null && !others.isEmpty();
        if (ratios) {
            table(b, "mvbt/peer throughput ratio (mvbt ops/s ÷ peer ops/s; above 1: mvbt is faster):", "phase", phases,
                    p -> p, others, r -> "vs " + r.peer.id(), (p, r) -> ratioText(ratio(p, r)));
        }
        List<String> points = footprintPoints();
        if (!points.isEmpty()) {
            table(b, "Footprint: bytes on disk per live entry after the load (heap the store held, MiB):", "after",
                    points, p -> p, runs, r -> r.peer.id(), (p, r) -> {
                        Protocol.Footprint f = r.footprint(p);
                        return f == null ? "-" : (f.bytesPerEntry() < 0 ? "in memory" : num(f.bytesPerEntry()))
                                + (f.heapBytes() < 0 ? "" : " (" + num(f.heapBytes() / 1048576.0) + ")");
                    });
            if (ratios) {
                table(b, "mvbt/peer bytes per entry (below 1: mvbt's files are smaller):", "after", points, p -> p,
                        others, r -> "vs " + r.peer.id(), (p, r) -> ratioText(footprintRatio(p, r)));
            }
        }
        List<String> timed = phasesOf(r -> r.latencies.stream().map(Protocol.Latency::phase));
        if (!timed.isEmpty()) {
            table(b, "Latency of each operation: p50 / p99 / p99.9 / max, µs:", "phase", timed, p -> p, runs,
                    r -> r.peer.id(), (p, r) -> {
                        Protocol.Latency l = r.latency(p);
                        return l == null ? "-" : micros(l.p50()) + " / " + micros(l.p99()) + " / " + micros(l.p999())
                                + " / " + micros(l.max());
                    });
        }
        List<String> costed = phasesOf(r -> r.costs.stream().map(Protocol.Cost::phase));
        if (!costed.isEmpty()) {
            table(b, "Cost beyond the work: minor page faults per operation (major faults, if any); garbage"
                    + " collections and their time in the phase:", "phase", costed, p -> p, runs, r -> r.peer.id(),
                    (p, r) -> costText(r.cost(p), r.timing(p)));
        }
        b.append("\nSettings (durability ").append(options.mode.label()).append("):\n\n| store | settings | notes |\n|---|---|---|\n");
        for (PeerRun r : runs) {
            b.append("| ").append(r.peer.id()).append(" | ").append(r.settings.replace("|", "\\|")).append(" | ")
                    .append(String.join("; ", r.notes).replace("|", "\\|"));
            if (r.failure != null) {
                b.append(r.notes.isEmpty() ? "" : "; ").append("**FAILED: ").append(r.failure).append("**");
            }
            b.append(" |\n");
        }
        return b.toString();
    }

    String csv() {
        StringBuilder b = new StringBuilder(
                "suite,entries,durability,threads,peer,kind,phase,ops,nanos,ops_per_sec,us_per_op,mvbt_ratio,"
                        + "live_entries,disk_bytes,bytes_per_entry,heap_bytes,p50_ns,p99_ns,p999_ns,max_ns\n");
        String prefix = suite.name() + "," + options.entries + "," + options.mode.label() + "," + options.threads + ",";
        for (PeerRun r : runs) {
            for (Protocol.Timing t : r.timings) {
                double ratio = r.peer == Peer.MVBT ? 1.0 : ratio(t.phase(), r);
                b.append(prefix).append(r.peer.id()).append(",phase,").append(t.phase()).append(',').append(t.ops())
                        .append(',').append(t.nanos()).append(',').append(String.format(Locale.ROOT, "%.1f", t.opsPerSecond()))
                        .append(',').append(String.format(Locale.ROOT, "%.4f", t.microsPerOp())).append(',')
                        .append(Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.4f", ratio)).append(",,,,,,,,\n");
            }
            for (Protocol.Footprint f : r.footprints) {
                double ratio = r.peer == Peer.MVBT ? 1.0 : footprintRatio(f.after(), r);
                b.append(prefix).append(r.peer.id()).append(",footprint,\"").append(f.after()).append("\",,,,,")
                        .append(Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.4f", ratio)).append(',')
                        .append(f.entries()).append(',').append(f.diskBytes()).append(',')
                        .append(f.bytesPerEntry() < 0 ? "" : String.format(Locale.ROOT, "%.2f", f.bytesPerEntry()))
                        .append(',').append(f.heapBytes()).append(",,,,\n");
            }
            for (Protocol.Latency l : r.latencies) {
                b.append(prefix).append(r.peer.id()).append(",latency,").append(l.phase()).append(',').append(l.count())
                        .append(String.format(Locale.ROOT, ",,,,,,,,,%d,%d,%d,%d\n", l.p50(), l.p99(), l.p999(),
                                l.max()));
            }
            if (r.failure != null) {
                b.append(prefix).append(r.peer.id()).append(",failed,\"").append(r.failure.replace("\"", "'"))
                        .append("\",,,,,,,,,,,,,\n");
            }
        }
        return b.toString();
    }
}
