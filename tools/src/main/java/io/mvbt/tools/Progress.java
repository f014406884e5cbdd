// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.PrintStream;

/**
 * A one-line progress display on standard error for long work: redrawn in place at most four
 * times a second, and only when a person is watching (a console), so logs and pipes stay clean.
 */
final class Progress implements AutoCloseable {
    private static final long INTERVAL_NANOS = 250_000_000L;
    private static final int WIDTH = 30;

    private final PrintStream err = System.err;
    private final String label;
    private final long total;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private long last;
    private boolean shown;

    /** A count without a bar: the total is not known. */
    Progress(String label) {
        this(label, -1);
    }

    /** {@code total} of 0 or less: unknown, so a count without a bar. */
    Progress(String label, long total) {
        this.label = label;
        this.total = total;
        this.enabled = System.console() != null;
    }

    void update(long done) {
        update(done, total);
    }

    /** Shows {@code done} of {@code total} (total 0 or less: unknown). */
    void update(long done, long total) {
        long now = System.nanoTime();
        if (!enabled || now - last < INTERVAL_NANOS) {
            return;
        }
        last = now;
        draw(done, total, now);
    }

    private void draw(long done, long total, long now) {
        double seconds = (now - start) / 1e9;
        String rate = seconds > 0 ? String.format("%,.0f/s", done / seconds) : "";
        if (total > 0) {
            int filled = (int) Math.min(WIDTH, done * WIDTH / total);
            err.printf("\r%s [%s%s] %,d/%,d %s   ", label, "#".repeat(filled), " ".repeat(WIDTH - filled), done, total,
                    rate);
        } else {
            err.printf("\r%s %,d %s   ", label, done, rate);
        }
        err.flush();
        shown = true;
    }

    /** Draws the final count and ends the line, so that it stays on the screen. */
    void finish(long done) {
        if (enabled) {
            draw(done, total, System.nanoTime());
            err.println();
            shown = false;
        }
    }

    /** Clears the line. */
    void done() {
        if (shown) {
            err.print("\r" + " ".repeat(79) + "\r");
            err.flush();
            shown = false;
        }
    }

    @Override
    public void close() {
        done();
    }
}
