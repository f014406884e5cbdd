// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/**
 * Pending pages against a model: a page is never released while a held revision can still see
 * it, every page is released exactly once when nothing holds it, and the count stays right, for
 * small groups and for the hundreds of thousands of pages a checkpoint window of a large store pins.
 */
class PendingPagesTest {
    private record Freed(long written, long holder, int count) {
    }

    @Test
    void groupsOfEverySizeReleaseEachPageOnceAndNeverEarly() {
        for (long seed = 1; seed <= 6; seed++) {
            check(seed, seed % 2 == 0 ? 200 : 50_000);
        }
    }

    private static void check(long seed, int perRound) {
        SplittableRandom random = new SplittableRandom(seed);
        PendingPages pending = new PendingPages();
        TreeSet<Long> held = new TreeSet<>();
        Map<Long, Freed> waiting = new HashMap<>();
        long nextPage = 0;
        long revision = 10;
        long released = 0;
        long added = 0;
        for (int round = 0; round < 8; round++) {
            // Revisions are taken hold of when they are the newest: a durable one, readers.
            held.add(revision);
            if (random.nextBoolean()) {
                held.add(revision + 1 + random.nextInt(3));
            }
            revision += 5;
            long[] heldArray = held.stream().mapToLong(Long::longValue).toArray();
            for (int i = 0; i < perRound; i++) {
                long freedAt = revision + random.nextInt(5);
                long holder = held.lower(freedAt);
                long written = Math.max(1, holder - random.nextInt(30));
                int count = random.nextInt(10) == 0 ? 2 + random.nextInt(3) : 1;
                long page = nextPage;
                nextPage += count;
                long low = PendingPages.ceiling(heldArray, heldArray.length, written);
                pending.add(holder, random.nextBoolean() ? low : written, page, count);
                waiting.put(page, new Freed(written, holder, count));
                added += count;
            }
            revision += 5;
            assertEquals(added - released, pending.pages());
            // Let some holders go; what they pinned is judged again.
            for (Long h : new ArrayList<>(held)) {
                if (random.nextInt(3) == 0) {
                    held.remove(h);
                }
            }
            released += release(pending, held, waiting);
            assertEquals(added - released, pending.pages());
        }
        held.clear();
        released += release(pending, held, waiting);
        assertTrue(waiting.isEmpty(), waiting.size() + " runs never released");
        assertEquals(added, released);
        assertEquals(0, pending.pages());
        assertTrue(pending.isEmpty());
    }

    /**
     * A long reader pins only the pages it can see. Each checkpoint window frees pages of the
     * durable tree into the durable revision's group; when a checkpoint lets that go, the pages
     * written after the reader must be released, not handed to the reader. (A bitmap of pages
     * judged by their oldest writer once broke this: the reader kept every window's pages.)
     */
    @Test
    void aLongReaderPinsOnlyThePagesItCanSee() {
        PendingPages pending = new PendingPages();
        long reader = 5;
        long durable = 100;
        long page = 10;
        long visibleToReader = 0;
        for (int window = 0; window < 10; window++) {
            pending.add(durable, 1, page++, 1);
            visibleToReader++;
            for (int i = 1; i < 20_000; i++) {
                pending.add(durable, reader + 1 + (i % 50), page++, 1);
            }
            long next = durable + 100;
            pending.release(new long[] {reader, next}, 2, (p, n) -> { });
            durable = next;
        }
        assertEquals(visibleToReader, pending.pages(), "pages pinned by a reader that sees " + visibleToReader);
    }

    /**
     * A reader that closed between two releases that saw the same held revisions: the pages it
     * pinned, added after the first release, go at the second.
     */
    @Test
    void pagesOfAHolderThatCameAndWentBetweenReleasesAreReleased() {
        PendingPages pending = new PendingPages();
        long[] durable = {100};
        pending.add(100, 100, 5, 1);
        pending.release(durable, 1, (p, n) -> { });
        // A reader at 150 was held when revision 160 freed these pages, written at 120.
        pending.add(150, 150, 7, 1);
        pending.add(150, 150, 8, 2);
        List<Long> released = new ArrayList<>();
        pending.release(durable, 1, (p, n) -> released.add(p));
        assertEquals(List.of(7L, 8L), released);
        assertEquals(1, pending.pages(), "the durable revision's page stays");
    }

    /**
     * A page freed before every holder is known waits with low bound 0: a holder that comes to
     * light later below its writer's oldest known reader still keeps it, where a page judged with
     * the holders then known would go.
     */
    @Test
    void aLowBoundOfZeroKeepsPagesForAHolderThatComesToLightLater() {
        PendingPages pending = new PendingPages();
        // Written at 30, freed at 150, with 100 the only holder known: low 0 here, 100 otherwise.
        pending.add(100, 0, 7, 1);
        pending.add(100, 100, 8, 1);
        List<Long> released = new ArrayList<>();
        // A reader at 40 comes to light, then a checkpoint lets 100 go.
        pending.release(new long[] {40, 200}, 2, (p, n) -> released.add(p));
        assertEquals(List.of(8L), released, "only the page judged with 100 as its oldest holder goes");
        assertEquals(1, pending.pages());
        pending.release(new long[] {200}, 1, (p, n) -> released.add(p));
        assertEquals(List.of(8L, 7L), released);
    }

    /** Releases against {@code held}, checking each released run; returns the pages released. */
    private static long release(PendingPages pending, TreeSet<Long> held, Map<Long, Freed> waiting) {
        long[] heldArray = held.stream().mapToLong(Long::longValue).toArray();
        List<Long> pagesReleased = new ArrayList<>();
        long[] count = new long[1];
        pending.release(heldArray, heldArray.length, (page, pages) -> {
            Freed f = waiting.remove(page);
            assertTrue(f != null, "page " + page + " released twice or never freed");
            assertEquals(f.count(), pages);
            // Visible to revisions [written, freed): none of them may still be held.
            Long seen = held.ceiling(f.written());
            assertFalse(seen != null && seen <= f.holder(), "page " + page + " written at " + f.written()
                    + " released while revision " + seen + " is held");
            pagesReleased.add(page);
            count[0] += pages;
        });
        return count[0];
    }
}
