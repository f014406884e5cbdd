// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.pagestore.local.MemoryPageStore;
import io.mvbt.pagestore.PageStore;

/**
 * Prefaulting after checkpoints: the touch never changes a byte, even racing the writer's stores
 * to the same words, and never reaches past a truncation; it covers the pages the writer then
 * allocates, in their order; and a store does it after each checkpoint unless told not to.
 */
class PrefaultTest {
    /** Pages written through the mapping, as without a shadow directory (what this test is about). */
    private static final StoreOptions MAPPED = StoreOptions.defaults().shadowDirectory(null);

    @TempDir
    Path dir;

    private FilePageStore openFile(String name) {
        return FilePageStore.open(dir.resolve(name), 4096, (channel, size) -> 4096, 16);
    }

    @Test
    void aTouchRacingStoresToTheSameWordsLosesNoneOfThem() throws Exception {
        try (Closing<FilePageStore> file = new Closing<>(openFile("race"))) {
            FilePageStore pages = file.value;
            int count = 64;
            pages.extend(count);
            long[] pageNos = new long[count];
            for (int i = 0; i < count; i++) {
                pageNos[i] = i;
            }
            AtomicBoolean done = new AtomicBoolean();
            Thread toucher = new Thread(() -> {
                while (!done.get()) {
                    pages.prefault(pageNos, 0, count);
                }
            });
            toucher.start();
            // Plain stores, as the writer makes them: each page's first word counts up, and a touch
            // that wrote back an older value would show as a count gone back.
            int rounds = 200_000;
            long lost = 0;
            for (int r = 1; r <= rounds; r++) {
                for (int i = 0; i < count; i++) {
                    long address = pages.address(i);
                    if (UNSAFE.getLong(address) != r - 1) {
                        lost++;
                    }
                    UNSAFE.putLong(address, r);
                }
            }
            done.set(true);
            toucher.join();
            assertEquals(0, lost, "stores lost to the touch");
        }
    }

    @Test
    void aTouchNeverReachesPastATruncationThatRacesIt() throws Exception {
        try (Closing<FilePageStore> file = new Closing<>(openFile("truncate"))) {
            FilePageStore pages = file.value;
            long small = 256;
            long large = 4 * 256;
            pages.extend(large);
            long[] tail = new long[(int) (large - small)];
            for (int i = 0; i < tail.length; i++) {
                tail[i] = small + i;
            }
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread toucher = new Thread(() -> {
                try {
                    while (!done.get()) {
                        for (int i = 0; i < tail.length; i += 16) {
                            pages.prefault(tail, i, 16);
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            toucher.start();
            // A store to a mapped page past the end of the file kills the JVM with SIGBUS.
            for (int r = 0; r < 300; r++) {
                pages.truncate(small);
                pages.extend(large);
            }
            done.set(true);
            toucher.join();
            assertNull(failure.get());
            pages.truncate(small);
            pages.prefault(tail, 0, tail.length);
            assertEquals(small, pages.pageCount());
        }
    }

    @Test
    void pagesACheckpointLetsGoAreCleanSoNotHot() {
        MemoryPageStore pages = new MemoryPageStore(4096);
        pages.extend(PageStore.META_SLOTS);
        FreeSpace space = new FreeSpace(pages, Writeback.inPlace(pages));
        space.loaded();
        space.begin(1);
        long[] written = new long[500];
        for (int i = 0; i < written.length; i++) {
            written[i] = space.allocate(1);
        }
        space.published(1, new long[0], 0, true);
        space.checkpointed();
        // Revision 1 is durable (held); revision 2 frees its pages and writes as many new ones.
        space.begin(2);
        for (long page : written) {
            space.free(page, 1, 1);
            space.allocate(1);
        }
        space.published(2, new long[] {1}, 1, true);
        assertEquals(0, space.hotPages(), "pages of revision 1 wait for the checkpoint");
        space.checkpointed();
        space.releasePending(new long[0], 0);
        assertEquals(0, space.hotPages(), "written before the checkpoint, so clean");
        assertEquals(written.length, space.reusable.cardinality() - tailPages(space, pages));

        // Pages written since the checkpoint and freed again are hot.
        space.begin(3);
        long page = space.allocate(1);
        space.published(3, new long[] {2}, 1, true);
        space.begin(4);
        space.free(page, 3, 1);
        space.published(4, new long[] {2}, 1, true);
        assertEquals(1, space.hotPages());
    }

    /** Reusable pages past the highest page in use: what the last growth added and nothing took. */
    private static long tailPages(FreeSpace space, MemoryPageStore pages) {
        return pages.pageCount() - space.reusableTailStart();
    }

    @Test
    void upcomingListsThePagesAllocationsTakeNextInTheirOrder() {
        MemoryPageStore pages = new MemoryPageStore(4096);
        pages.extend(PageStore.META_SLOTS);
        FreeSpace space = new FreeSpace(pages, Writeback.inPlace(pages));
        space.loaded();
        long[] none = new long[0];
        space.begin(1);
        List<Long> first = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            first.add(space.allocate(1));
        }
        space.published(1, none, 0, true);
        // Revision 1 is held (say, durable): what revision 2 frees of it waits.
        space.begin(2);
        Random random = new Random(7);
        Set<Long> freed = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            long page = first.remove(random.nextInt(first.size()));
            space.free(page, 1, 1);
            freed.add(page);
        }
        long scratch = space.allocate(1);
        space.free(scratch, 2, 1);
        space.published(2, new long[] {1}, 1, true);
        space.checkpointed();
        assertEquals(301, space.lastWindowPages());
        // A checkpoint later, revision 1 is let go: its freed pages come back, among the hot ones.
        space.releasePending(none, 0);

        long[] upcoming = new long[120];
        int n = space.upcoming(upcoming);
        assertEquals(upcoming.length, n);
        space.begin(3);
        long[] allocated = new long[n];
        for (int i = 0; i < n; i++) {
            allocated[i] = space.allocate(1);
        }
        assertArrayEquals(upcoming, allocated);
        assertEquals(freed, Arrays.stream(upcoming).limit(40).boxed().collect(Collectors.toSet()),
                "the pages the checkpoint let go come first");
    }

    @Test
    void aStorePrefaultsAfterEachCheckpointUnlessToldNotTo() throws Exception {
        assertTrue(pagesPrefaultedAfterAnOverwrite(MAPPED) > 0);
        assertEquals(0, pagesPrefaultedAfterAnOverwrite(MAPPED.prefault(false)));
    }

    @Test
    void pagesAStoreGrowsByAreTouchedBeforeAnyCheckpoint() throws Exception {
        Path path = dir.resolve("growth");
        try (Store store = Store.open(path, MAPPED.durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1)))) {
            byte[] value = new byte[200];
            // One transaction at a time, each growing the store: no checkpoint ever lists pages.
            for (int round = 0; round < 20 && store.stats().pagesPrefaulted() == 0; round++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = 0; i < 5_000; i++) {
                        tx.put(t, String.format("key-%02d-%06d", round, i).getBytes(), value);
                    }
                    tx.commit();
                }
                Thread.sleep(50);
            }
            assertEquals(0, store.stats().checkpoints());
            assertTrue(store.stats().pagesPrefaulted() > 0, "no grown page was touched");
            store.check().throwIfDamaged();
        }
    }

    private long pagesPrefaultedAfterAnOverwrite(StoreOptions options) throws Exception {
        Path path = dir.resolve("store-" + options.prefault());
        try (Store store = Store.open(path, options.durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1)))) {
            byte[] value = new byte[200];
            for (int round = 0; round < 2; round++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = 0; i < 5_000; i++) {
                        tx.put(t, String.format("key-%06d", i).getBytes(), value);
                    }
                    tx.commit();
                }
                // The checkpoint of sync() finds the writer idle: the prefault starts at once.
                store.sync();
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (store.stats().pagesPrefaulted() == 0 && options.prefault() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            long prefaulted = store.stats().pagesPrefaulted();
            store.check().throwIfDamaged();
            return prefaulted;
        }
    }

    /** Closes a page store at the end of a try block. */
    private record Closing<T extends PageStore>(T value) implements AutoCloseable {
        @Override
        public void close() {
            value.close();
        }
    }
}
