// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import static io.mvbt.history.Tokens.id;
import static io.mvbt.history.Tokens.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Durability;
import io.mvbt.revisions.StoreOptions;

/**
 * Expiry runs while a writer stores articles one commit each and readers look up: no article is
 * lost, every answer a reader gets is one the rules allow, the counts are exact afterwards and the
 * store checks clean. Each expiry page waits for the writer to commit once more and for each
 * reader to finish another lookup, so the three really interleave.
 */
class ExpiryWhileWritingTest {
    private static final long DAY = 86_400;
    private static final long NOW = 1_760_000_000L;
    private static final int OLD = 20_000;
    private static final int READERS = 3;
    private static final long FRESH = 1_000_000;

    @TempDir
    Path dir;

    @Test
    void expiryRacesAWriterAndReadersWithoutLosingAnything() throws Exception {
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL);
        try (HistoryTable h = HistoryTable.open(dir.resolve("h.mvbt"), options)) {
            try (HistoryBatch b = h.beginBatch()) {
                for (int i = 0; i < OLD; i++) {
                    switch (i % 4) {
                        case 0 -> b.write(id(i), NOW - 30 * DAY, NOW - 30 * DAY, 0, token(i)); // deleted
                        case 1 -> b.write(id(i), NOW - 6 * DAY, NOW - 6 * DAY, 0, token(i));   // remembered
                        case 2 -> b.write(id(i), NOW - DAY, NOW - DAY, 0, token(i));            // kept
                        default -> b.remember(id(i), NOW - 20 * DAY, 0);                        // deleted
                    }
                }
                b.commit();
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong written = new AtomicLong();
            AtomicLong[] lookups = new AtomicLong[READERS];
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();

            Thread writer = new Thread(() -> {
                try {
                    for (long k = 0; !stop.get(); k++) {
                        if (!h.write(id(FRESH + k), NOW, NOW, 0, token(FRESH + k))) {
                            throw new AssertionError("fresh article " + k + " refused as a duplicate");
                        }
                        written.set(k + 1);
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }, "writer");
            Thread[] readers = new Thread[READERS];
            for (int t = 0; t < READERS; t++) {
                AtomicLong done = lookups[t] = new AtomicLong();
                long seed = t;
                readers[t] = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    try {
                        while (!stop.get()) {
                            int i = random.nextInt(OLD);
                            switch (i % 4) {
                                case 1 -> check(h.check(id(i)), "expiring article " + i + " vanished");
                                case 2 -> check(token(i).equals(h.lookup(id(i)).token()), "kept article " + i);
                                default -> h.check(id(i)); // may go either way while expiry runs
                            }
                            long w = written.get();
                            if (w > 0) {
                                long k = FRESH + random.nextLong(w);
                                HistoryEntry e = h.lookup(id(k));
                                check(e != null && token(k).equals(e.token()), "acknowledged article " + k + " not found");
                            }
                            done.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "reader-" + t);
            }
            writer.start();
            for (Thread r : readers) {
                r.start();
            }

            long writtenBefore = waitFor(written, 10, failures);
            ExpireReport report = h.expire(ExpiryPolicy.standard(5), ExpireOptions.defaults()
                    .clock(Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC)).rememberDays(10).pageSize(500)
                    .progress(p -> {
                        waitFor(written, written.get() + 1, failures);
                        for (AtomicLong l : lookups) {
                            waitFor(l, l.get() + 1, failures);
                        }
                    }));
            long writtenDuring = written.get() - writtenBefore;
            stop.set(true);
            writer.join(TimeUnit.SECONDS.toMillis(60));
            for (Thread r : readers) {
                r.join(TimeUnit.SECONDS.toMillis(60));
            }
            if (!failures.isEmpty()) {
                AssertionError e = new AssertionError("a racing thread failed: " + failures.peek());
                failures.forEach(e::addSuppressed);
                throw e;
            }
            assertTrue(report.transactions() >= OLD / 500 / 2, "expiry committed in many short transactions: " + report);
            assertTrue(writtenDuring >= report.transactions(), "the writer committed between expiry pages");

            long fresh = written.get();
            assertEquals(OLD / 4 * 2, report.deleted());
            assertEquals(OLD / 4, report.toRemembered());
            assertEquals(new HistoryCounts(OLD / 2 + fresh, OLD / 4 + fresh, OLD / 4), h.counts());
            for (long k = 0; k < fresh; k++) {
                assertEquals(token(FRESH + k), h.lookup(id(FRESH + k)).token(), "fresh article " + k);
            }
            for (int i = 0; i < OLD; i++) {
                HistoryEntry e = h.entry(id(i));
                switch (i % 4) {
                    case 1 -> assertTrue(e != null && e.isRemembered(), "entry " + i);
                    case 2 -> assertEquals(token(i), e.token(), "entry " + i);
                    default -> assertEquals(null, e, "entry " + i);
                }
            }
            long[] walked = new long[2];
            h.walk(e -> {
                walked[e.isArticle() ? 0 : 1]++;
                return true;
            });
            assertEquals(h.counts().articles(), walked[0]);
            assertEquals(h.counts().remembered(), walked[1]);
            h.store().check().throwIfDamaged();
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /**
     * Waits (up to 30 s) until {@code counter} reaches {@code target}; returns its value. A racing
     * thread that failed stops counting, so its failure is what this reports.
     */
    private static long waitFor(AtomicLong counter, long target, ConcurrentLinkedQueue<Throwable> failures) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (counter.get() < target) {
            if (!failures.isEmpty()) {
                throw new AssertionError("a racing thread failed: " + failures.peek(), failures.peek());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a racing thread made no progress in 30 s");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
        }
        return counter.get();
    }
}
