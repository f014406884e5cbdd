package io.mvbt.tools;

import java.io.PrintStream;

/**
 * A progress bar on standard error for long work, drawn only when a person is watching (a console),
 * so that redirected output stays clean. At most one redraw per 200 ms.
 */
final class Progress implements AutoCloseable {
    private static final int WIDTH = 30;
    private final PrintStream err = System.err;
    private final String label;
    private final long total;
    private final boolean shown;
    private long lastDraw;

    /** {@code total} of 0 or less: unknown, so a count without a bar. */
    Progress(String label, long total) {
        this.label = label;
        this.total = total;
        this.shown = System.console() != null;
    }

    void update(long done) {
        if (!shown) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastDraw < 200_000_000L) {
            return;
        }
        lastDraw = now;
        draw(done);
    }

    private void draw(long done) {
        if (total > 0) {
            int filled = (int) Math.min(WIDTH, done * WIDTH / total);
            err.printf("\r%s [%s%s] %3d%% %,d/%,d", label, "#".repeat(filled), " ".repeat(WIDTH - filled),
                    Math.min(100, done * 100 / total), done, total);
        } else {
            err.printf("\r%s %,d", label, done);
        }
        err.flush();
    }

    /** Draws the final state and ends the line. */
    void finish(long done) {
        if (shown) {
            draw(done);
            err.println();
        }
    }

    @Override
    public void close() {
        if (shown) {
            err.print("\r" + " ".repeat(label.length() + WIDTH + 40) + "\r");
            err.flush();
        }
    }
}
