// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import static io.mvbt.history.Tokens.id;
import static io.mvbt.history.Tokens.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.mvbt.revisions.Store;

/** INN's two expiry horizons, the policy outcomes, dry runs and paging. */
class ExpiryTest {
    private static final long DAY = 86_400;
    private static final long NOW = 1_760_000_000L;
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC);

    private static ExpireOptions options() {
        return ExpireOptions.defaults().clock(CLOCK).rememberDays(10);
    }

    @Test
    void standardPolicyExpiresByExpiresOrRetentionThenRemembersOrDeletes() {
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            // Retention 5 days; remember horizon 10 days.
            h.write("<fresh@x>", NOW - DAY, NOW - DAY, 0, token(1));                   // kept
            h.write("<old@x>", NOW - 6 * DAY, NOW - 6 * DAY, 0, token(2));             // to remembered
            h.write("<ancient@x>", NOW - 20 * DAY, NOW - 20 * DAY, 0, token(3));       // deleted at once
            h.write("<expires-past@x>", NOW - DAY, NOW - DAY, NOW - 1, token(4));      // to remembered
            h.write("<expires-future@x>", NOW - 8 * DAY, NOW - 8 * DAY, NOW + DAY, token(5)); // kept
            h.write("<expires-now@x>", NOW - DAY, NOW - DAY, NOW, token(6));           // to remembered
            // Remembered entries: measured by posted, by arrived when posted is unknown.
            h.remember("<r-young@x>", NOW - DAY, NOW - 9 * DAY);                      // kept
            h.remember("<r-posted-old@x>", NOW - DAY, NOW - 11 * DAY);                // deleted: posted counts
            h.remember("<r-arrived-old@x>", NOW - 11 * DAY, 0);                       // deleted: arrived stands in
            h.remember("<r-arrived-young@x>", NOW - 9 * DAY, 0);                      // kept
            h.remember("<r-no-times@x>", 0, 0);                                       // deleted
            h.remember("<r-at-horizon@x>", NOW - 10 * DAY, 0);                        // kept: not older
            ExpireReport report = h.expire(ExpiryPolicy.standard(5), options());
            assertEquals(12, report.examined());
            assertEquals(2, report.kept());
            assertEquals(3, report.toRemembered());
            assertEquals(4, report.deleted());
            assertEquals(3, report.rememberedKept());
            assertEquals(0, report.rewritten());
            assertEquals(1, report.transactions());
            assertFalse(report.dryRun());

            assertTrue(h.lookup("<fresh@x>") != null && h.lookup("<expires-future@x>") != null);
            for (String id : List.of("<old@x>", "<expires-past@x>", "<expires-now@x>")) {
                assertNull(h.lookup(id), id);
                HistoryEntry r = h.entry(id);
                assertTrue(r.isRemembered(), id);
                assertEquals(0, r.expires(), id);
                assertEquals(NOW - (id.equals("<old@x>") ? 6 : 1) * DAY, r.arrived(), id);
            }
            for (String id : List.of("<ancient@x>", "<r-posted-old@x>", "<r-arrived-old@x>", "<r-no-times@x>")) {
                assertFalse(h.check(id), id);
            }
            for (String id : List.of("<r-young@x>", "<r-arrived-young@x>", "<r-at-horizon@x>")) {
                assertTrue(h.check(id), id);
            }
            assertEquals(new HistoryCounts(8, 2, 6), h.counts());
            store.check().throwIfDamaged();

            // A second run changes nothing more.
            ExpireReport again = h.expire(ExpiryPolicy.standard(5), options());
            assertEquals(2, again.kept());
            assertEquals(0, again.toRemembered() + again.deleted());
            assertEquals(0, again.transactions());
        }
    }

    @Test
    void aPolicyCanKeepRememberOrRewriteEachArticle() {
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            for (int i = 0; i < 30; i++) {
                h.write(id(i), NOW - i, NOW - i, 0, token(i));
            }
            ExpiryPolicy policy = (article, now) -> {
                assertEquals(NOW, now);
                long i = NOW - article.arrived();
                if (i % 3 == 0) {
                    return ExpiryDecision.keep();
                }
                if (i % 3 == 1) {
                    return ExpiryDecision.remember();
                }
                return ExpiryDecision.rewrite(token(1000 + i), NOW + i);
            };
            ExpireReport report = h.expire(policy, options().pageSize(7));
            assertEquals(30, report.examined());
            assertEquals(20, report.kept());
            assertEquals(10, report.rewritten());
            assertEquals(10, report.toRemembered());
            assertEquals(0, report.deleted());
            for (int i = 0; i < 30; i++) {
                HistoryEntry e = h.entry(id(i));
                switch (i % 3) {
                    case 0 -> assertEquals(token(i), e.token());
                    case 1 -> assertTrue(e.isRemembered());
                    default -> {
                        assertEquals(token(1000 + i), e.token());
                        assertEquals(NOW + i, e.expires());
                        assertEquals(NOW - i, e.arrived(), "times other than expiry stay");
                    }
                }
            }
            assertEquals(new HistoryCounts(30, 20, 10), h.counts());
        }
    }

    @Test
    void aDryRunReportsTheSameAndChangesNothing() {
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            for (int i = 0; i < 500; i++) {
                if (i % 2 == 0) {
                    h.write(id(i), NOW - i * 3600, NOW - i * 3600, 0, token(i));
                } else {
                    h.remember(id(i), NOW - i * 3600, 0);
                }
            }
            List<HistoryEntry> before = new ArrayList<>();
            h.walk(before::add);
            long revision = store.revision();
            ExpireReport dry = h.expire(ExpiryPolicy.standard(5), options().dryRun(true).pageSize(50));
            assertTrue(dry.dryRun());
            assertEquals(0, dry.transactions());
            assertEquals(revision, store.revision(), "no commit");
            List<HistoryEntry> after = new ArrayList<>();
            h.walk(after::add);
            assertEquals(before, after);
            assertTrue(dry.toRemembered() > 0 && dry.deleted() > 0 && dry.kept() > 0 && dry.rememberedKept() > 0);

            ExpireReport real = h.expire(ExpiryPolicy.standard(5), options().pageSize(50));
            assertEquals(dry.examined(), real.examined());
            assertEquals(dry.kept(), real.kept());
            assertEquals(dry.toRemembered(), real.toRemembered());
            assertEquals(dry.deleted(), real.deleted());
            assertEquals(dry.rememberedKept(), real.rememberedKept());
            assertEquals(500 - real.deleted(), h.counts().total());
        }
    }

    @Test
    void pagesResumeAfterTheLastHashSoEveryEntryIsSeenOnce() {
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            try (HistoryBatch b = h.beginBatch()) {
                for (int i = 0; i < 1000; i++) {
                    b.write(id(i), NOW, NOW, 0, token(i));
                }
                b.commit();
            }
            List<String> pages = new ArrayList<>();
            List<byte[]> seen = new ArrayList<>();
            ExpireReport r = h.expire((a, now) -> {
                seen.add(a.hash());
                return ExpiryDecision.remember();
            }, options().rememberDays(1).pageSize(64).progress(p -> pages.add(p.examined() + "")));
            assertEquals(1000, r.examined());
            assertEquals(1000, seen.size());
            for (int i = 1; i < seen.size(); i++) {
                assertTrue(java.util.Arrays.compareUnsigned(seen.get(i - 1), seen.get(i)) < 0, "hash order, no repeats");
            }
            assertEquals(16, pages.size());
            assertEquals(16, r.transactions());
            assertEquals(new HistoryCounts(1000, 0, 1000), h.counts());
        }
    }

    /**
     * Entries a writer changes while their page is being decided: one deleted is counted nowhere
     * (examined stays the sum of the outcomes), one given a future expiry is decided again and kept.
     */
    @Test
    void entriesChangedWhileTheirPageIsDecidedAreDecidedAgain() {
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            List<byte[]> hashes = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                hashes.add(MessageIdHash.of("<old-" + i + "@x>"));
                h.write(hashes.get(i), NOW - 6 * DAY, NOW - 6 * DAY, 0, token(i));
            }
            hashes.sort(java.util.Arrays::compareUnsigned);
            byte[] deleted = hashes.get(4);
            byte[] extended = hashes.get(7);
            ExpiryPolicy standard = ExpiryPolicy.standard(5);
            boolean[] changed = {false};
            ExpireReport report = h.expire((article, now) -> {
                if (!changed[0]) {
                    changed[0] = true;
                    try (HistoryBatch b = h.beginBatch()) {
                        b.delete(deleted, b.get(deleted));
                        assertTrue(b.replace(extended, NOW - 6 * DAY, NOW - 6 * DAY, NOW + DAY, token(77)));
                        b.commit();
                    }
                }
                return standard.decide(article, now);
            }, options());
            assertEquals(9, report.examined());
            assertEquals(1, report.kept());
            assertEquals(8, report.toRemembered());
            assertEquals(report.examined(), report.kept() + report.toRemembered() + report.deleted() + report.rememberedKept());
            assertNull(h.entry(deleted));
            assertEquals(NOW + DAY, h.lookup(extended).expires());
        }
    }

    @Test
    void aRetentionMeantAsForeverKeepsEveryArticle() {
        ExpiryPolicy forever = ExpiryPolicy.standard(1e15);
        byte[] hash = new byte[16];
        for (long arrived : new long[] {1, NOW - 400 * DAY, NOW, Long.MAX_VALUE - DAY}) {
            HistoryEntry article = HistoryEntry.article(hash, arrived, 0, 0, token(1));
            assertEquals(ExpiryDecision.Kind.KEEP, forever.decide(article, NOW).kind(), "arrived at " + arrived);
        }
        // The bound still holds for an ordinary retention.
        assertEquals(ExpiryDecision.Kind.REMEMBER,
                ExpiryPolicy.standard(5).decide(HistoryEntry.article(hash, NOW - 6 * DAY, 0, 0, token(1)), NOW).kind());
    }

    @Test
    void aBadPolicyOrOptionIsRefused() {
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            h.write(id(1), NOW, NOW, 0, token(1));
            assertThrows(IllegalArgumentException.class, () -> h.expire(null, options()));
            assertThrows(IllegalStateException.class, () -> h.expire((a, now) -> null, options()));
            assertThrows(IllegalArgumentException.class, () -> options().pageSize(0));
            assertThrows(IllegalArgumentException.class, () -> options().rememberDays(-1));
            assertThrows(IllegalArgumentException.class, () -> ExpiryPolicy.standard(Double.NaN));
        }
    }
}
