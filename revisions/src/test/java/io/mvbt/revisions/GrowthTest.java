// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.mvbt.StorageException;
import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.local.MemoryPageStore;
import io.mvbt.testkit.ForwardingPageStore;

/**
 * How the store grows. Each growth of a file maps its new pages as one more mapping, and a process
 * may hold only some 65,000 of them: growing by what is missing, a MiB at a time, would fail a
 * store near 64 GiB. Growth is by a 32nd of the store (1 MiB to 64 MiB), whichever path asks.
 */
class GrowthTest {
    private static final int PAGE = 4096;
    private static final long MIB_PAGES = (1 << 20) / PAGE;

    @Test
    void reservingBeforeAFreeMapFlushGrowsByAThirtySecondOfTheStore() {
        MemoryPageStore pages = new MemoryPageStore(PAGE);
        FreeSpace space = fullSpace(pages, 64 * MIB_PAGES);
        long before = pages.pageCount();

        space.reserve(10);

        assertEquals(before + before / 32, pages.pageCount(), "a 64 MiB store reserving 10 pages grows by 2 MiB");
        assertEquals(before / 32, space.reusable.cardinality());
    }

    @Test
    void allocatingPastTheEndGrowsByAThirtySecondOfTheStore() {
        MemoryPageStore pages = new MemoryPageStore(PAGE);
        FreeSpace space = fullSpace(pages, 64 * MIB_PAGES);
        long before = pages.pageCount();

        long page = space.allocate(1);

        assertEquals(before, page, "the first page past the old end");
        assertEquals(before + before / 32, pages.pageCount());
    }

    @Test
    void aSmallStoreStillGrowsByAMiB() {
        MemoryPageStore pages = new MemoryPageStore(PAGE);
        FreeSpace space = fullSpace(pages, 4 * MIB_PAGES);
        long before = pages.pageCount();

        space.reserve(1);

        assertEquals(before + MIB_PAGES, pages.pageCount());
    }

    @Test
    void aReservationLargerThanTheStepGrowsByTheReservation() {
        MemoryPageStore pages = new MemoryPageStore(PAGE);
        FreeSpace space = fullSpace(pages, 64 * MIB_PAGES);
        long before = pages.pageCount();

        space.reserve(5 * MIB_PAGES);

        assertTrue(space.reusable.cardinality() >= 5 * MIB_PAGES);
        assertEquals(before + 5 * MIB_PAGES, pages.pageCount());
    }

    @Test
    void aDiskTooFullForTheStepStillGivesWhatIsNeeded() {
        MemoryPageStore memory = new MemoryPageStore(PAGE);
        long count = 64 * MIB_PAGES;
        long capacity = count + 100;
        PageStore nearlyFull = new ForwardingPageStore(memory) {
            @Override
            public void extend(long newPageCount) {
                if (newPageCount > capacity) {
                    throw new StorageException("no space left on the device (a test's disk of " + capacity
                            + " pages)");
                }
                super.extend(newPageCount);
            }
        };
        FreeSpace space = fullSpace(memory, nearlyFull, count);

        space.reserve(10);
        assertEquals(count + 10, memory.pageCount(), "the step does not fit: just what the reservation needs");
        long page = -1;
        for (int i = 0; i < 11; i++) {
            page = space.allocate(1);
        }
        assertEquals(count + 10, page, "an allocation past the end grows by the page it needs");
        assertThrows(StorageException.class, () -> space.reserve(1000), "more than the disk holds");
    }

    /** Free space over a store of {@code count} pages, every one of them in use. */
    private static FreeSpace fullSpace(MemoryPageStore pages, long count) {
        return fullSpace(pages, pages, count);
    }

    private static FreeSpace fullSpace(MemoryPageStore memory, PageStore pages, long count) {
        memory.extend(count);
        FreeSpace space = new FreeSpace(pages, Writeback.inPlace(pages));
        for (long p = PageStore.META_SLOTS; p < count; p++) {
            space.loadInUse(p);
        }
        space.loaded();
        space.begin(1);
        assertEquals(0, space.reusable.cardinality());
        return space;
    }
}
