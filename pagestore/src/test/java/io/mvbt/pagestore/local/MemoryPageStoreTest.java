// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;

/** Pages in memory: regions that never move, runs within one region. */
class MemoryPageStoreTest {
    @Test
    void pagesKeepTheirAddressesAsTheStoreGrows() {
        try (MemoryPageStore store = new MemoryPageStore(8192)) {
            store.extend(10);
            long address = store.address(7);
            UNSAFE.putLong(address, 42);
            store.extend(5_000);
            assertEquals(address, store.address(7));
            assertEquals(42, UNSAFE.getLong(store.address(7)));
            assertEquals(0, UNSAFE.getLong(store.address(4_999)));
            assertFalse(store.durable());
        }
    }

    @Test
    void anAppendedRunLiesInOneRegion() {
        try (MemoryPageStore store = new MemoryPageStore(4096)) {
            store.extend(100);
            int pages = 3_000;
            long run = store.appendRun(pages);
            assertTrue(run + pages <= store.runEnd(run));
            assertEquals(store.address(run), store.runAddress(run, pages));
            assertEquals(store.address(run + pages - 1), store.address(run) + (long) (pages - 1) * 4096);
        }
    }
}
