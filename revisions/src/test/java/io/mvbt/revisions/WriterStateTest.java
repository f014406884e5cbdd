// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.local.MemoryPageStore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WriterStateTest {

    /**
     * The holder moves pages between "in use" and "reusable" and publishes after each move, so every
     * published picture has the same sum; a reader racing it must never see a mix of two pictures.
     */
    @Test
    void aReaderSeesTheCountsOfOnePublicationWhole() throws Exception {
        MemoryPageStore pages = new MemoryPageStore(4096);
        pages.extend(PageStore.META_SLOTS);
        FreeSpace space = new FreeSpace(pages, Writeback.inPlace(pages));
        WriterState state = new WriterState(space, new FreeMap(pages.pageSize()), null);
        int total = 1024;
        for (long p = 0; p < total; p++) {
            space.reusable.set(p);
        }
        state.publishCounts();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<WriterState.SpaceCounts> torn = new AtomicReference<>();
        AtomicLong reads = new AtomicLong();
        Thread reader = new Thread(() -> {
            while (!done.get()) {
                WriterState.SpaceCounts c = state.published();
                if (c.inUse() + c.reusable() != total) {
                    torn.compareAndSet(null, c);
                }
                reads.incrementAndGet();
            }
        });
        reader.start();
        long deadline = System.nanoTime() + 500_000_000L;
        for (long round = 0; System.nanoTime() < deadline || reads.get() < 1000; round++) {
            // Move a run of pages at a time, so that a torn read would be off by the whole run.
            for (long p = 0; p < total; p++) {
                if ((round & 1) == 0) {
                    space.reusable.clear(p);
                    space.inUse.set(p);
                } else {
                    space.inUse.clear(p);
                    space.reusable.set(p);
                }
                if (p % 97 == 0) {
                    state.publishCounts();
                }
            }
            state.publishCounts();
        }
        done.set(true);
        reader.join();
        assertNull(torn.get(), "a published picture mixed two publications");
        assertTrue(reads.get() >= 1000, "the reader ran " + reads.get() + " times");
    }
}
