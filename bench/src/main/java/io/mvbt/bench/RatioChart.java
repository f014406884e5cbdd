// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.List;
import java.util.Locale;

/**
 * An SVG bar chart of the mvbt/peer throughput ratios of one suite: a group of bars per phase,
 * one bar per peer, on a logarithmic axis centred on 1x (bars to the right: mvbt is faster).
 * Written by hand: a hundred lines of SVG text, where a chart library (JFreeChart with JFreeSVG)
 * would add two dependencies to the harness for two charts of bars and lines.
 */
final class RatioChart {
    static final String[] COLORS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f"};
    private static final double MIN = 1.0 / 100;
    private static final double MAX = 100;
    private static final int LEFT = 170;
    private static final int PLOT = 620;
    private static final int BAR = 11;
    private static final int GROUP_GAP = 10;
    private static final int TOP = 70;

    private final Report report;

    RatioChart(Report report) {
        this.report = report;
    }

    private static double x(double ratio) {
        double r = Math.max(MIN, Math.min(MAX, ratio));
        return LEFT + (Math.log10(r) - Math.log10(MIN)) / (Math.log10(MAX) - Math.log10(MIN)) * PLOT;
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    String svg() {
        List<String> phases = report.phases();
        List<PeerRun> peers = report.others();
        int groupHeight = Math.max(1, peers.size()) * BAR + GROUP_GAP;
        int height = TOP + phases.size() * groupHeight + 50;
        int width = LEFT + PLOT + 90;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
                width, height, width, height));
        b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>\n", 10,
                esc("mvbt / peer throughput, " + report.title())));
        b.append("<text x=\"10\" y=\"34\" fill=\"#444\">Ratio of ops/s, log scale; right of 1x: mvbt is faster."
                + " Bars clipped at 0.01x and 100x.</text>\n");
        // Legend.
        int lx = 10;
        for (int i = 0; i < peers.size(); i++) {
            String name = peers.get(i).peer.id();
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"42\" width=\"10\" height=\"10\" fill=\"%s\"/>", lx,
                    COLORS[i % COLORS.length]));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"51\">vs %s</text>\n", lx + 14, esc(name)));
            lx += 30 + 7 * name.length() + 14;
        }
        int bottom = TOP + phases.size() * groupHeight;
        // Grid and axis labels.
        double[] ticks = {0.01, 0.1, 0.5, 1, 2, 5, 10, 100};
        for (double t : ticks) {
            double gx = x(t);
            b.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%s\"/>\n", gx, TOP - 6,
                    gx, bottom, t == 1 ? "#000" : "#ddd", t == 1 ? "1.5" : "1"));
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#444\">%sx</text>\n",
                    gx, bottom + 14, t < 1 ? String.valueOf(t) : String.valueOf((int) t)));
        }
        double one = x(1);
        for (int p = 0; p < phases.size(); p++) {
            String phase = phases.get(p);
            int gy = TOP + p * groupHeight;
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", LEFT - 8,
                    gy + (peers.size() * BAR) / 2 + 4, esc(phase)));
            for (int i = 0; i < peers.size(); i++) {
                double r = report.ratio(phase, peers.get(i));
                int y = gy + i * BAR;
                if (Double.isNaN(r)) {
                    b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#999\">n/a</text>\n", one + 4,
                            y + BAR - 2));
                    continue;
                }
                double bx = x(r);
                double x0 = Math.min(one, bx);
                double w = Math.max(1, Math.abs(bx - one));
                b.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s vs %s: %s</title></rect>\n",
                        x0, y, w, BAR - 2, COLORS[i % COLORS.length], esc(phase), esc(peers.get(i).peer.id()),
                        Report.ratioText(r)));
                double tx = r >= 1 ? bx + 3 : bx - 3;
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"9\" text-anchor=\"%s\">%s</text>\n",
                        tx, y + BAR - 3, r >= 1 ? "start" : "end", Report.ratioText(r)));
            }
        }
        b.append("</svg>\n");
        return b.toString();
    }
}
