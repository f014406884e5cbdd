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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.StoreStats;

/**
 * Intake plus expiry, day after day: the space expiry frees is reused by later articles, so once
 * the table holds a steady number of entries the store stops growing.
 */
class SteadyStateTest {
    private static final long DAY = 86_400;
    private static final long START = 1_760_000_000L;
    private static final int PER_DAY = 3_000;

    @TempDir
    Path dir;

    @Test
    void freedSpaceIsReusedByLaterArticles() {
        try (HistoryTable h = HistoryTable.open(dir.resolve("h.mvbt"))) {
            long id = 0;
            long[] pagesInUse = new long[16];
            for (int day = 0; day < pagesInUse.length; day++) {
                long now = START + day * DAY;
                for (int i = 0; i < PER_DAY; i++, id++) {
                    if (i % 10 == 0) {
                        h.remember(id(id), now, now);
                    } else {
                        h.write(id(id), now, now, 0, token(id));
                    }
                }
                // Articles kept 3 days, remembered entries 5 days after posting.
                h.expire(ExpiryPolicy.standard(3), ExpireOptions.defaults().rememberDays(5)
                        .clock(Clock.fixed(Instant.ofEpochSecond(now + DAY / 2), ZoneOffset.UTC)));
                h.sync();
                StoreStats stats = h.store().stats();
                pagesInUse[day] = stats.pagesInUse();
            }
            // Articles live 3 expiry runs (days 13-15 remain); remembered entries 5 days after posting
            // (days 11-15): their own, and the articles of days 11 and 12 that expired.
            HistoryCounts c = h.counts();
            assertEquals(3 * PER_DAY * 9 / 10, c.articles());
            assertEquals(5 * PER_DAY / 10 + 2 * PER_DAY * 9 / 10, c.remembered());
            long settled = pagesInUse[8];
            for (int day = 9; day < pagesInUse.length; day++) {
                assertTrue(pagesInUse[day] <= settled * 13 / 10,
                        "day " + day + ": " + pagesInUse[day] + " pages in use, " + settled + " on day 8");
            }
            h.store().check().throwIfDamaged();
        }
    }
}
