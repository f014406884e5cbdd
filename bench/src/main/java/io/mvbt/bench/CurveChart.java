// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An SVG of one suite's curve: a small panel per phase, µs per operation against the store's size,
 * both on logarithmic axes, one line per store. A flat line is a cost that does not grow with the
 * store. Written by hand, as {@link RatioChart}.
 */
final class CurveChart {
    private static final int COLUMNS = 3;
    private static final int PANEL_W = 260;
    private static final int PANEL_H = 170;
    private static final int PAD = 42;
    private static final int TOP = 60;

    private final String suite;
    private final List<String> phases;
    private final List<String> stores;
    private final List<Long> sizes;
    /** µs per operation by [phase][store][size], NaN where missing. */
    private final double[][][] micros;

    CurveChart(String suite, List<String> phases, List<String> stores, List<Long> sizes, double[][][] micros) {
        this.suite = suite;
        this.phases = phases;
        this.stores = stores;
        this.sizes = sizes;
        this.micros = micros;
    }

    String svg() {
        int rows = (phases.size() + COLUMNS - 1) / COLUMNS;
        int width = COLUMNS * PANEL_W + 20;
        int height = TOP + rows * PANEL_H + 20;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"10\">\n", width, height, width, height));
        b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        b.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>\n",
                RatioChart.esc(suite + ": µs per operation against entries (log-log; flat is best)")));
        int lx = 10;
        for (int s = 0; s < stores.size(); s++) {
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"30\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"39\">%s</text>\n", lx, color(s), lx + 14, RatioChart.esc(stores.get(s))));
            lx += 24 + 7 * stores.get(s).length();
        }
        for (int p = 0; p < phases.size(); p++) {
            panel(b, p, 10 + (p % COLUMNS) * PANEL_W, TOP + (p / COLUMNS) * PANEL_H);
        }
        b.append("</svg>\n");
        return b.toString();
    }

    private void panel(StringBuilder b, int p, int x0, int y0) {
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (double[] store : micros[p]) {
            for (double v : store) {
                if (v > 0) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        int left = x0 + PAD;
        int right = x0 + PANEL_W - 16;
        int top = y0 + 16;
        int bottom = y0 + PANEL_H - 28;
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", left, y0 + 10,
                RatioChart.esc(phases.get(p))));
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
                + " stroke=\"#ccc\"/>\n", left, top, right - left, bottom - top));
        if (hi == 0) {
            return;
        }
        // A decade at least, so that a flat line looks flat.
        double logLo = Math.floor(Math.log10(lo));
        double logHi = Math.max(logLo + 1, Math.ceil(Math.log10(hi)));
        for (double e = logLo; e <= logHi; e++) {
            double y = y(Math.pow(10, e), logLo, logHi, top, bottom);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#444\">%s</text>\n", left, y, right, y,
                    left - 4, y + 3, Report.num(Math.pow(10, e))));
        }
        for (int n = 0; n < sizes.size(); n++) {
            double x = x(n, left, right);
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#444\">%s"
                    + "</text>\n", x, bottom + 12, Curve.label(sizes.get(n))));
        }
        for (int s = 0; s < stores.size(); s++) {
            List<String> points = new ArrayList<>();
            for (int n = 0; n < sizes.size(); n++) {
                double v = micros[p][s][n];
                if (v > 0) {
                    points.add(String.format(Locale.ROOT, "%.1f,%.1f", x(n, left, right), y(v, logLo, logHi, top,
                            bottom)));
                }
            }
            b.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\""
                    + " stroke-width=\"2\"/>\n", String.join(" ", points), color(s)));
            for (String point : points) {
                String[] xy = point.split(",");
                b.append(String.format(Locale.ROOT, "<circle cx=\"%s\" cy=\"%s\" r=\"2.5\" fill=\"%s\"/>\n", xy[0],
                        xy[1], color(s)));
            }
        }
    }

    /** Sizes are spaced evenly: the runs are usually a decade apart. */
    private double x(int n, int left, int right) {
        return sizes.size() == 1 ? (left + right) / 2.0 : left + 12 + n * (right - left - 24.0) / (sizes.size() - 1);
    }

    private static double y(double v, double logLo, double logHi, int top, int bottom) {
        return bottom - (Math.log10(v) - logLo) / (logHi - logLo) * (bottom - top);
    }

    private static String color(int s) {
        return RatioChart.COLORS[s % RatioChart.COLORS.length];
    }
}
