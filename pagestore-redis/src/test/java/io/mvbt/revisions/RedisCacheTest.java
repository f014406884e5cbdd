// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * Stores on Redis with a page cache far smaller than the store (1 MiB for about 10 MiB of pages):
 * the writer and readers evict pages and read them again, never see a wrong byte, and keep their
 * memory near the budget once their snapshots close.
 */
class RedisCacheTest extends RedisTestServers {
    private static final int KEYS = 60_000;
    private static final long BUDGET = 1 << 20;
    private static final long BUDGET_PAGES = BUDGET / 4096;
    private static final RedisStoreOptions SMALL = RedisStoreOptions.defaults().cacheBytes(BUDGET);

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** A value that names its key and the round that wrote it, padded to about 150 bytes. */
    private static byte[] value(int i, int round) {
        return ("value of " + i + " in round " + round + " " + "v".repeat(120)).getBytes(StandardCharsets.UTF_8);
    }

    private static int roundOf(byte[] value, int i) {
        String text = new String(value, StandardCharsets.UTF_8);
        String prefix = "value of " + i + " in round ";
        if (!text.startsWith(prefix)) {
            throw new AssertionError("key " + i + " holds another key's value: " + text);
        }
        return Integer.parseInt(text.substring(prefix.length(), text.indexOf(' ', prefix.length())));
    }

    private static void load(Store writer, int round) {
        for (int from = 0; from < KEYS; from += 5_000) {
            try (WriteTxn tx = writer.beginWrite()) {
                Tree t = tx.createTreeIfAbsent("t");
                for (int i = from; i < from + 5_000; i++) {
                    tx.put(t, key(i), value(i, round));
                }
                tx.commit();
            }
        }
    }

    @Test
    void aWriterWithASmallCacheReadsBackEveryValueAndStaysNearItsBudget() {
        RedisPageStore pages = RedisPageStore.open(RedisEndpoint.parse(single.address()), "cache-writer", SMALL);
        try (Store writer = Store.open(pages, StoreOptions.defaults().durability(Durability.SYNC))) {
            load(writer, 1);
            Tree t = writer.tree("t");
            SplittableRandom random = new SplittableRandom(1);
            for (int n = 0; n < 20_000; n++) {
                int i = random.nextInt(KEYS);
                try (Snapshot s = writer.beginRead()) {
                    assertEquals(1, roundOf(s.get(t, key(i)), i));
                }
            }
            for (int n = 0; n < 2_000; n++) {
                int i = random.nextInt(KEYS);
                try (WriteTxn tx = writer.beginWrite()) {
                    assertEquals(1, roundOf(tx.get(t, key(i)), i));
                    tx.put(t, key(i), value(i, 1));
                    tx.commit();
                }
            }
            assertTrue(pages.evictedPages() > 5 * BUDGET_PAGES, "evicted " + pages.evictedPages());
            assertTrue(pages.cachedPages() <= BUDGET_PAGES + 64, pages.cachedPages() + " pages kept");
            writer.check().throwIfDamaged();
        }
        try (Store again = Store.open(RedisPageStore.open(RedisEndpoint.parse(single.address()), "cache-writer", SMALL),
                StoreOptions.defaults())) {
            assertEquals(KEYS, again.check().throwIfDamaged().entries());
        }
    }

    /**
     * Readers on a small cache, each snapshot short, check every value they read while the writer
     * rewrites the store round after round: their evicted pages are read again whole, and a zero-copy
     * value stays valid while its snapshot is open, however much is evicted meanwhile.
     */
    @Test
    void readersWithASmallCacheSeeOnlyWholeValuesWhileTheWriterCommits() throws Exception {
        String name = "cache-readers";
        RedisStoreOptions writerOptions = RedisStoreOptions.defaults().cacheBytes(4 * BUDGET);
        try (Store writer = Store.open(RedisPageStore.open(RedisEndpoint.parse(single.address()), name, writerOptions),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            load(writer, 1);
            RedisPageStore readerPages = RedisPageStore.openReader(RedisEndpoint.parse(single.address()), name, SMALL);
            try (Store reader = Store.open(readerPages, StoreOptions.defaults())) {
                Tree t = reader.tree("t");
                AtomicBoolean stop = new AtomicBoolean();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicLong reads = new AtomicLong();
                List<Thread> threads = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    int seed = r;
                    threads.add(new Thread(() -> {
                        SplittableRandom random = new SplittableRandom(seed);
                        UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
                        try {
                            while (!stop.get()) {
                                try (Snapshot s = reader.beginRead()) {
                                    int first = random.nextInt(KEYS);
                                    byte[] copy = s.get(t, key(first));
                                    assertTrue(s.get(t, new UnsafeBuffer(key(first)), view));
                                    for (int n = 0; n < 50; n++) {
                                        int i = random.nextInt(KEYS);
                                        roundOf(s.get(t, key(i)), i);
                                    }
                                    byte[] viewed = new byte[view.capacity()];
                                    view.getBytes(0, viewed);
                                    assertArrayEquals(copy, viewed, "a zero-copy value changed in its open snapshot");
                                    reads.addAndGet(51);
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }));
                }
                threads.forEach(Thread::start);
                for (int round = 2; round <= 4 && failure.get() == null; round++) {
                    load(writer, round);
                }
                stop.set(true);
                for (Thread thread : threads) {
                    thread.join();
                }
                if (failure.get() != null) {
                    throw new AssertionError(failure.get());
                }
                assertTrue(reads.get() > 1_000, reads.get() + " reads");

                // A scan forward and back in one snapshot: it keeps what it reads until it closes.
                try (Snapshot s = reader.beginRead(); Cursor c = s.cursor(t)) {
                    int i = 0;
                    for (boolean ok = c.first(); ok; ok = c.next()) {
                        assertArrayEquals(key(i), c.keyBytes());
                        assertEquals(4, roundOf(c.valueBytes(), i));
                        i++;
                    }
                    assertEquals(KEYS, i);
                    for (boolean ok = c.last(); ok; ok = c.prev()) {
                        i--;
                        assertArrayEquals(key(i), c.keyBytes());
                    }
                    assertEquals(0, i);
                }
                try (Snapshot s = reader.beginRead()) {
                    for (int i = 0; i < KEYS; i += 97) {
                        assertEquals(4, roundOf(s.get(t, key(i)), i));
                    }
                }
                assertTrue(readerPages.evictedPages() > 5 * BUDGET_PAGES, "evicted " + readerPages.evictedPages());
                assertTrue(readerPages.cachedPages() <= BUDGET_PAGES + 64, readerPages.cachedPages() + " pages kept");
            }
        }
    }
}
