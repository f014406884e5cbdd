// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.time.Clock;
import java.util.function.Consumer;

/**
 * How {@link HistoryTable#expire} runs. Immutable: each setter returns a new instance.
 *
 * <ul>
 * <li>{@code rememberDays}: a remembered entry whose posting time (arrival time if the posting
 * time is not known) is older than this many days is deleted: INN's {@code /remember/} line in
 * expire.ctl; default 11, as INN ships.</li>
 * <li>{@code pageSize}: entries examined per write transaction (default 1,000): a writer waits at
 * most for one page's changes.</li>
 * <li>{@code dryRun}: change nothing, report what would change.</li>
 * <li>{@code clock}: where "now" comes from (read once, at the start).</li>
 * <li>{@code progress}: called after each page with the counts so far.</li>
 * </ul>
 */
public final class ExpireOptions {
    private final double rememberDays;
    private final int pageSize;
    private final boolean dryRun;
    private final Clock clock;
    private final Consumer<ExpireReport> progress;

    private ExpireOptions(double rememberDays, int pageSize, boolean dryRun, Clock clock,
            Consumer<ExpireReport> progress) {
        this.rememberDays = rememberDays;
        this.pageSize = pageSize;
        this.dryRun = dryRun;
        this.clock = clock;
        this.progress = progress;
    }

    public static ExpireOptions defaults() {
        return new ExpireOptions(11, 1_000, false, Clock.systemUTC(), r -> { });
    }

    public ExpireOptions rememberDays(double days) {
        if (!(days >= 0) || Double.isInfinite(days)) {
            throw new IllegalArgumentException("remember horizon of " + days + " days");
        }
        return new ExpireOptions(days, pageSize, dryRun, clock, progress);
    }

    public ExpireOptions pageSize(int entries) {
        if (entries < 1) {
            throw new IllegalArgumentException("page of " + entries + " entries");
        }
        return new ExpireOptions(rememberDays, entries, dryRun, clock, progress);
    }

    public ExpireOptions dryRun(boolean dryRun) {
        return new ExpireOptions(rememberDays, pageSize, dryRun, clock, progress);
    }

    public ExpireOptions clock(Clock clock) {
        if (clock == null) {
            throw new IllegalArgumentException("clock is null");
        }
        return new ExpireOptions(rememberDays, pageSize, dryRun, clock, progress);
    }

    public ExpireOptions progress(Consumer<ExpireReport> progress) {
        if (progress == null) {
            throw new IllegalArgumentException("progress is null");
        }
        return new ExpireOptions(rememberDays, pageSize, dryRun, clock, progress);
    }

    public double rememberDays() {
        return rememberDays;
    }

    public int pageSize() {
        return pageSize;
    }

    public boolean dryRun() {
        return dryRun;
    }

    public Clock clock() {
        return clock;
    }

    public Consumer<ExpireReport> progress() {
        return progress;
    }
}
