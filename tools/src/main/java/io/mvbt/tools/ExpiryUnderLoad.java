// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.PrintStream;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.HdrHistogram.Histogram;

import io.mvbt.history.ExpireOptions;
import io.mvbt.history.ExpireReport;
import io.mvbt.history.ExpiryDecision;
import io.mvbt.history.HistoryReader;
import io.mvbt.history.HistoryTable;
import io.mvbt.history.MessageIdHash;
import io.mvbt.history.StorageToken;

/**
 * The history bench's expiry phase (mvbt only): the article writer's rate, one commit per article,
 * with a reader looking up beside it, first without expiry and then while expiry turns the oldest
 * 10% of the articles into remembered entries. Issue 5's target: the writer keeps at least 80% of
 * its rate, and no lookup waits: every lookup is timed, and the spread (p50, p99, p99.9, worst) is
 * reported for both halves.
 */
final class ExpiryUnderLoad {
    private final HistoryTable table;
    private final long entries;
    private final PrintStream out;

    ExpiryUnderLoad(HistoryTable table, long entries, PrintStream out) {
        this.table = table;
        this.entries = entries;
        this.out = out;
    }

    /** Result of one half: the writer's rate, and the reader's rate and latencies. */
    record Half(long writes, double seconds, long lookups, Histogram latencies) {
        /** p50 / p99 / p99.9 / worst, in µs. */
        String spread() {
            return String.format("%.2f / %.2f / %.2f / %,.0f µs", latencies.getValueAtPercentile(50) / 1e3,
                    latencies.getValueAtPercentile(99) / 1e3, latencies.getValueAtPercentile(99.9) / 1e3,
                    latencies.getMaxValue() / 1e3);
        }

        double writeRate() {
            return writes / seconds;
        }

        double lookupRate() {
            return lookups / seconds;
        }
    }

    /** Runs both halves; returns {alone, during expiry}. Articles written here get ids from {@code entries} up. */
    Half[] run(long writesAlone) {
        long cutoff = HistoryBenchCommand.BASE_TIME + entries / 10;
        Half alone = half(entries, writesAlone, null);
        AtomicReference<ExpireReport> report = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread expirer = new Thread(() -> {
            try {
                // The oldest tenth, by arrival, becomes remembered; nothing is old enough to delete.
                report.set(table.expire((article, now) -> article.arrived() < cutoff ? ExpiryDecision.remember()
                        : ExpiryDecision.keep(), ExpireOptions.defaults().rememberDays(1e6)));
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "expire");
        Half during = half(entries + writesAlone, Long.MAX_VALUE, expirer);
        if (failure.get() != null) {
            throw new IllegalStateException("expiry failed", failure.get());
        }
        ExpireReport r = report.get();
        if (r.toRemembered() != entries / 10 || r.deleted() != 0) {
            throw new IllegalStateException("expiry turned " + r.toRemembered() + " articles into remembered entries "
                    + "and deleted " + r.deleted() + "; expected " + entries / 10 + " and 0");
        }
        out.printf("  expire       %,12d examined, %,d to remembered in %.2f s (%,d transactions)%n", r.examined(),
                r.toRemembered(), r.elapsed().toNanos() / 1e9, r.transactions());
        return new Half[] {alone, during};
    }

    /**
     * Writes new articles from id {@code first} while a reader looks up existing ones: {@code count}
     * of them, or, with {@code expirer}, for as long as it runs.
     */
    private Half half(long first, long count, Thread expirer) {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong lookups = new AtomicLong();
        Histogram latencies = new Histogram(3);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(7);
            try {
                while (!stop.get()) {
                    // A fresh snapshot every 100 lookups, as a reader process would see new articles.
                    try (HistoryReader r = table.reader()) {
                        for (int k = 0; k < 100; k++) {
                            long i = random.nextLong(entries);
                            long t0 = System.nanoTime();
                            boolean found = r.check(MessageIdHash.of(HistoryBenchCommand.messageId(i)));
                            long t = System.nanoTime() - t0;
                            if (!found) {
                                throw new IllegalStateException("lookup of entry " + i + " found nothing");
                            }
                            latencies.recordValue(Math.max(0, t));
                        }
                    }
                    lookups.addAndGet(100);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "lookups");
        reader.start();
        long start = System.nanoTime();
        if (expirer != null) {
            expirer.start();
        }
        long written = 0;
        for (long i = first; expirer != null ? expirer.isAlive() : written < count; i++, written++) {
            long arrived = HistoryBenchCommand.BASE_TIME + i;
            if (!table.write(MessageIdHash.of(HistoryBenchCommand.messageId(i)), arrived, arrived, 0,
                    StorageToken.of(HistoryBenchCommand.token(i)))) {
                throw new IllegalStateException("article " + i + " refused as a duplicate");
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        try {
            reader.join();
            if (expirer != null) {
                expirer.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("the reader failed", failure.get());
        }
        // The reader has ended (joined above): its histogram is safe to read.
        Half half = new Half(written, seconds, lookups.get(), latencies);
        out.printf("  %-12s %,12d writes in %8.2f s = %,12.0f writes/s; reader %,.0f lookups/s, p50/p99/p99.9/worst %s%n",
                expirer == null ? "write+read" : "...+expire", written, seconds, half.writeRate(), half.lookupRate(),
                half.spread());
        return half;
    }

}
