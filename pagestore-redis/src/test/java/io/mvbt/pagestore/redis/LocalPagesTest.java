// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.agrona.collections.LongArrayList;
import org.junit.jupiter.api.Test;

import io.mvbt.CorruptionException;

/** Slots of local memory: found by page number, given back on discard, taken again by new pages of any length. */
class LocalPagesTest {
    private static final int PAGE = 4096;

    @Test
    void aRunGivenBackServesShorterRunsAndSinglePages() {
        LocalPages local = new LocalPages(PAGE);
        long run = local.take(100, 5, null);
        assertEquals(run + 2L * PAGE, local.address(102));
        assertEquals(105, local.runEnd(100));
        assertEquals(103, local.runEnd(102));
        UNSAFE.setMemory(run, 5L * PAGE, (byte) 7);
        local.release(100, 5);
        assertEquals(0, local.address(100));
        assertEquals(0, local.address(104));

        long shorter = local.take(200, 3, null);
        assertEquals(run, shorter);
        assertEquals(0, UNSAFE.getByte(shorter + 3L * PAGE - 1), "a slot taken again reads as zeros");
        long single = local.take(300, 1, null);
        long another = local.take(301, 1, null);
        // The rest of the run (two slots) serves the single pages.
        assertEquals(run + 3L * PAGE, Math.min(single, another));
        assertEquals(run + 4L * PAGE, Math.max(single, another));
        assertNotEquals(run, local.take(302, 1, null));
        assertEquals(6, local.pages());
    }

    @Test
    void aPageReadFromElsewhereHoldsItsBytesBeforeItCanBeFound() {
        LocalPages local = new LocalPages(PAGE);
        byte[] bytes = new byte[2 * PAGE];
        bytes[PAGE + 5] = 42;
        long address = local.take(9, 2, bytes);
        assertEquals(42, UNSAFE.getByte(local.address(10) + 5));
        assertEquals(address, local.address(9));
        assertEquals(address, local.take(9, 2, null), "a page with a slot keeps it");
    }

    /** Pages from {@code pageNo}: each holds its number in every long. */
    private static byte[] pageOf(long pageNo, int pages) {
        byte[] bytes = new byte[pages * PAGE];
        for (int i = 0; i < bytes.length; i += 8) {
            UNSAFE.putLong(bytes, UNSAFE.arrayBaseOffset(byte[].class) + i, pageNo + i / PAGE);
        }
        return bytes;
    }

    /** A 1 MiB cache holding as many pages read from Redis as its budget allows: 10 and up. */
    private static LocalPages fullCache() {
        LocalPages local = new LocalPages(PAGE, 1 << 20);
        for (long p = 10; p < 10 + local.budgetPages(); p++) {
            local.take(p, 1, pageOf(p, 1));
        }
        return local;
    }

    @Test
    void pagesFromRedisAreEvictedPastTheBudgetLeastRecentlyUsedFirst() {
        LocalPages local = fullCache();
        long budget = local.budgetPages();
        assertEquals(0, local.evictions());
        // Pages 10 to 19 are looked up again: the pages not looked up since go first.
        for (long p = 10; p < 20; p++) {
            local.address(p);
        }
        for (long p = 10_000; p < 10_000 + budget; p++) {
            local.take(p, 1, pageOf(p, 1));
        }
        assertTrue(local.evictions() >= budget, "evicted " + local.evictions());
        assertTrue(local.pages() <= budget, local.pages() + " pages kept, budget " + budget);
        for (long p = 10_000 + budget - 10; p < 10_000 + budget; p++) {
            assertEquals(p, UNSAFE.getLong(local.address(p) + PAGE - 8), "a page taken last is kept");
        }
        assertEquals(0, local.address(25), "a page not looked up for long is evicted");
    }

    @Test
    void pagesNotSentAreKeptUntilTheirSendIsDone() {
        LocalPages local = new LocalPages(PAGE, 1 << 20);
        long budget = local.budgetPages();
        LongArrayList made = new LongArrayList();
        for (long p = 10; p < 10 + budget; p++) {
            local.take(p, 1, null);
            made.addLong(p);
        }
        local.take(5000, 3, null);
        made.addLong(5000);
        for (long p = 10_000; p < 10_000 + 2 * budget; p++) {
            local.take(p, 1, pageOf(p, 1));
        }
        for (long p = 10; p < 10 + budget; p++) {
            assertTrue(local.has(p), "page " + p + " is only here");
        }
        assertTrue(local.has(5002));
        for (int i = 0; i < made.size(); i++) {
            local.copied(made.getLong(i), 7);
        }
        local.written(11);
        // A send of an earlier capture does not clean a page copied by a later one.
        local.sent(made, 6);
        for (long p = 20_000; p < 20_000 + 2 * budget; p++) {
            local.take(p, 1, pageOf(p, 1));
        }
        assertTrue(local.has(12) && local.has(5000));
        local.sent(made, 7);
        for (long p = 30_000; p < 30_000 + 2 * budget; p++) {
            local.take(p, 1, pageOf(p, 1));
        }
        assertTrue(local.has(11), "written again after its copy: not sent yet");
        assertEquals(0, local.address(12));
        assertEquals(0, local.address(5000));
        assertEquals(0, local.address(5002), "a run goes whole");
    }

    @Test
    void anOpenSpanKeepsEveryPageItLookedUp() {
        LocalPages local = fullCache();
        long budget = local.budgetPages();
        long span = local.beginSpan();
        long[] kept = new long[20];
        for (int i = 0; i < kept.length; i++) {
            kept[i] = local.address(10 + i);
        }
        long run = local.take(7000, 4, pageOf(7000, 4));
        for (long p = 10_000; p < 10_000 + 3 * budget; p++) {
            local.take(p, 1, pageOf(p, 1));
        }
        for (int i = 0; i < kept.length; i++) {
            assertEquals(kept[i], local.address(10 + i));
            assertEquals(10 + i, UNSAFE.getLong(kept[i]));
        }
        assertEquals(7003, UNSAFE.getLong(run + 4L * PAGE - 8));
        // Stamps are not per span: the pages anyone looked up since the span began stay too.
        assertTrue(local.pages() > 3 * budget, local.pages() + " pages kept, budget " + budget);
        local.endSpan(span);
        for (long p = 20_000; p < 20_000 + 3 * budget; p++) {
            local.take(p, 1, pageOf(p, 1));
        }
        assertEquals(0, local.address(10), "evicted once the span ended");
        assertEquals(0, local.address(7000));
        assertTrue(local.pages() <= budget, local.pages() + " pages kept, budget " + budget);
    }

    /**
     * Threads look pages up and read them in spans while others take new ones past a small budget:
     * a page looked up in a span holds its own bytes until the span ends, however eviction races it.
     */
    @Test
    void lookupsRacingEvictionNeverSeeAnotherPagesBytes() throws Exception {
        LocalPages local = new LocalPages(PAGE, 1 << 20);
        long pages = 4 * local.budgetPages();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long deadline = System.nanoTime() + 2_000_000_000L;
        for (int t = 0; t < 3; t++) {
            int seed = t;
            threads.add(new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                long[] held = new long[8];
                long[] addresses = new long[8];
                try {
                    while (System.nanoTime() < deadline && failure.get() == null) {
                        long span = local.beginSpan();
                        for (int i = 0; i < held.length; i++) {
                            // Some are runs of three, numbered apart from the single pages.
                            long unit = random.nextLong(pages);
                            int length = unit % 7 == 0 ? 3 : 1;
                            long p = length == 1 ? 10 + unit : 1_000_000 + 3 * unit;
                            long address = local.address(p);
                            if (address == 0) {
                                address = local.take(p, length, pageOf(p, length));
                            }
                            held[i] = p;
                            addresses[i] = address;
                        }
                        for (int i = 0; i < held.length; i++) {
                            long first = UNSAFE.getLong(addresses[i]);
                            long last = UNSAFE.getLong(addresses[i] + PAGE - 8);
                            if (first != held[i] && last != held[i]) {
                                throw new AssertionError("page " + held[i] + " reads as " + first + "/" + last);
                            }
                            if (first != held[i] || last != held[i]) {
                                throw new AssertionError("page " + held[i] + " changed while held: " + first + "/" + last);
                            }
                        }
                        local.endSpan(span);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(local.evictions() > 1000, "evicted " + local.evictions());
    }

    @Test
    void aRunOverAPageReadOnItsOwnIsRefusedAndAWrongCountFreesOnlyTheRun() {
        LocalPages local = new LocalPages(PAGE);
        local.take(11, 1, pageOf(11, 1));
        assertThrows(CorruptionException.class, () -> local.take(10, 3, pageOf(10, 3)));
        assertEquals(11, UNSAFE.getLong(local.address(11)));
        local.take(20, 2, pageOf(20, 2));
        local.take(22, 1, pageOf(22, 1));
        local.release(20, 5);
        assertEquals(0, local.address(21));
        assertEquals(22, UNSAFE.getLong(local.address(22)), "a page after the run keeps its slot");
    }
}
