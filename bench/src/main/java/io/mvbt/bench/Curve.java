// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The same suites at several sizes (--entries 1M,10M,100M): per store and phase, the cost of an
 * operation and the bytes per entry at each size, and how much the largest costs against the
 * smallest. A store whose cost stays flat as it grows shows a ratio near 1.
 */
final class Curve {
    /** Reports of one suite, by size, in the order run. */
    private final Map<String, Map<Long, Report>> bySuite = new LinkedHashMap<>();
    private final List<Long> sizes = new ArrayList<>();

    Curve(List<Report> reports) {
        for (Report r : reports) {
            bySuite.computeIfAbsent(r.suite.name(), k -> new LinkedHashMap<>()).put(r.options.entries, r);
            if (!sizes.contains(r.options.entries)) {
                sizes.add(r.options.entries);
            }
        }
    }

    /** 1M, 10M, 100k, or the number. */
    static String label(long entries) {
        if (entries % 1_000_000 == 0) {
            return entries / 1_000_000 + "M";
        }
        if (entries % 1_000 == 0) {
            return entries / 1_000 + "k";
        }
        return Long.toString(entries);
    }

    String markdown() {
        StringBuilder b = new StringBuilder("## Across sizes\n");
        long first = sizes.get(0);
        long last = sizes.get(sizes.size() - 1);
        String growth = label(last) + " ÷ " + label(first);
        for (Map.Entry<String, Map<Long, Report>> suite : bySuite.entrySet()) {
            Map<Long, Report> at = suite.getValue();
            b.append("\n### ").append(suite.getKey()).append(": µs per operation\n\n");
            header(b, "phase", growth);
            for (String phase : phases(at)) {
                for (String store : stores(at)) {
                    b.append("| ").append(phase).append(" | ").append(store).append(" |");
                    for (long n : sizes) {
                        Protocol.Timing t = timing(at.get(n), store, phase);
                        b.append(' ').append(t == null ? "-" : Report.num(t.microsPerOp())).append(" |");
                    }
                    Protocol.Timing a = timing(at.get(first), store, phase);
                    Protocol.Timing z = timing(at.get(last), store, phase);
                    b.append(' ').append(a == null || z == null || a.microsPerOp() == 0 ? "-"
                            : String.format(Locale.ROOT, "%.2fx", z.microsPerOp() / a.microsPerOp())).append(" |\n");
                }
            }
            List<String> points = points(at);
            if (!points.isEmpty()) {
                b.append("\n### ").append(suite.getKey()).append(": bytes on disk per live entry (heap MiB)\n\n");
                header(b, "after", growth);
                for (String point : points) {
                    for (String store : stores(at)) {
                        b.append("| ").append(point).append(" | ").append(store).append(" |");
                        for (long n : sizes) {
                            Protocol.Footprint f = footprint(at.get(n), store, point);
                            b.append(' ').append(f == null ? "-" : (f.bytesPerEntry() < 0 ? "in memory"
                                    : Report.num(f.bytesPerEntry())) + (f.heapBytes() < 0 ? ""
                                    : " (" + Report.num(f.heapBytes() / 1048576.0) + ")")).append(" |");
                        }
                        Protocol.Footprint a = footprint(at.get(first), store, point);
                        Protocol.Footprint z = footprint(at.get(last), store, point);
                        b.append(' ').append(a == null || z == null || a.bytesPerEntry() <= 0 ? "-"
                                : String.format(Locale.ROOT, "%.2fx", z.bytesPerEntry() / a.bytesPerEntry()))
                                .append(" |\n");
                    }
                }
            }
        }
        return b.toString();
    }

    /** A chart of each suite's curve ({@link CurveChart}), by suite name. */
    Map<String, String> charts() {
        Map<String, String> charts = new LinkedHashMap<>();
        for (Map.Entry<String, Map<Long, Report>> suite : bySuite.entrySet()) {
            Map<Long, Report> at = suite.getValue();
            List<String> phases = new ArrayList<>(phases(at));
            List<String> stores = new ArrayList<>(stores(at));
            double[][][] micros = new double[phases.size()][stores.size()][sizes.size()];
            for (int p = 0; p < phases.size(); p++) {
                for (int s = 0; s < stores.size(); s++) {
                    for (int n = 0; n < sizes.size(); n++) {
                        Protocol.Timing t = timing(at.get(sizes.get(n)), stores.get(s), phases.get(p));
                        micros[p][s][n] = t == null ? Double.NaN : t.microsPerOp();
                    }
                }
            }
            charts.put(suite.getKey(), new CurveChart(suite.getKey(), phases, stores, sizes, micros).svg());
        }
        return charts;
    }

    private void header(StringBuilder b, String first, String growth) {
        b.append("| ").append(first).append(" | store |");
        sizes.forEach(n -> b.append(' ').append(label(n)).append(" |"));
        b.append(' ').append(growth).append(" |\n|---|---|");
        sizes.forEach(n -> b.append("---:|"));
        b.append("---:|\n");
    }

    private static Set<String> phases(Map<Long, Report> at) {
        Set<String> phases = new LinkedHashSet<>();
        at.values().forEach(r -> phases.addAll(r.suite.phases()));
        return phases;
    }

    private static Set<String> stores(Map<Long, Report> at) {
        Set<String> stores = new LinkedHashSet<>();
        at.values().forEach(r -> r.runs.forEach(run -> stores.add(run.peer.id())));
        return stores;
    }

    private static List<String> points(Map<Long, Report> at) {
        Set<String> points = new LinkedHashSet<>();
        at.values().forEach(r -> r.runs.forEach(run -> run.footprints.forEach(f -> points.add(f.after()))));
        return new ArrayList<>(points);
    }

    private static PeerRun run(Report r, String store) {
        if (r == null) {
            return null;
        }
        for (PeerRun run : r.runs) {
            if (run.peer.id().equals(store)) {
                return run;
            }
        }
        return null;
    }

    private static Protocol.Timing timing(Report r, String store, String phase) {
        PeerRun run = run(r, store);
        return run == null ? null : run.timing(phase);
    }

    private static Protocol.Footprint footprint(Report r, String store, String point) {
        PeerRun run = run(r, store);
        return run == null ? null : run.footprint(point);
    }
}
