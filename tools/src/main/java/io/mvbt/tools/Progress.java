package io.mvbt.tools;

import java.io.PrintStream;

/**
 * A one-line progress display on standard error for long runs: rewritten in place at most a few
 * times a second, and only when standard error is a terminal, so logs and pipes stay clean.
 */
final class Progress {
    private static final long INTERVAL_NANOS = 250_000_000L;

    private final PrintStream err = System.err;
    private final String label;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private long last;
    private boolean shown;

    Progress(String label) {
        this.label = label;
        this.enabled = System.console() != null;
    }

    /** Shows {@code done} of {@code total} (total 0 or less: unknown). */
    void update(long done, long total) {
        long now = System.nanoTime();
        if (!enabled || now - last < INTERVAL_NANOS) {
            return;
        }
        last = now;
        double seconds = (now - start) / 1e9;
        String rate = seconds > 0 ? String.format("%,.0f/s", done / seconds) : "";
        if (total > 0) {
            int width = 30;
            int filled = (int) Math.min(width, done * width / total);
            err.printf("\r%s [%s%s] %,d/%,d %s   ", label, "#".repeat(filled), " ".repeat(width - filled), done, total,
                    rate);
        } else {
            err.printf("\r%s %,d %s   ", label, done, rate);
        }
        shown = true;
    }

    /** Clears the line. */
    void done() {
        if (shown) {
            err.print("\r" + " ".repeat(79) + "\r");
            err.flush();
        }
    }
}
