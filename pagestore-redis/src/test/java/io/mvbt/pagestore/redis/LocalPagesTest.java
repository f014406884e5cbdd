package io.mvbt.pagestore.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

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
        UnsafeApi.setMemory(run, 5L * PAGE, (byte) 7);
        local.release(100, 5);
        assertEquals(0, local.address(100));
        assertEquals(0, local.address(104));

        long shorter = local.take(200, 3, null);
        assertEquals(run, shorter);
        assertEquals(0, UnsafeApi.getByte(shorter + 3L * PAGE - 1), "a slot taken again reads as zeros");
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
        assertEquals(42, UnsafeApi.getByte(local.address(10) + 5));
        assertEquals(address, local.address(9));
        assertEquals(address, local.take(9, 2, null), "a page with a slot keeps it");
    }
}
