// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.mvbt.SnapshotExpiredException;

/** Snapshots that hold old revisions: visible in {@link Store#readers()}, reported, expired. */
class SlowReaderTest {
    private static final int KEYS = 2_000;

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes();
    }

    private static byte[] value(long round, int i) {
        return ByteBuffer.allocate(16).putLong(round).putLong(i).array();
    }

    /** Writes every key with {@code round} in its value, one commit per key. */
    private static void overwriteAll(Store store, Tree tree, long round) {
        for (int i = 0; i < KEYS; i++) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(tree, key(i), value(round, i));
                tx.commit(Durability.NORMAL);
            }
        }
    }

    private static Tree load(Store store) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree tree = tx.createTree("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(tree, key(i), value(0, i));
            }
            tx.commit();
            return tree;
        }
    }

    @Test
    void readersShowRevisionLagAgeAndThread() throws Exception {
        try (Store store = Store.inMemory()) {
            Tree tree = load(store);
            try (Snapshot old = store.beginRead()) {
                overwriteAll(store, tree, 1);
                Thread.sleep(20);
                List<ReaderInfo> readers = store.readers();
                ReaderInfo info = readers.stream().filter(r -> !r.checkpoint()).findFirst().orElseThrow();
                assertEquals(old.revision(), info.revision());
                assertEquals(store.revision() - old.revision(), info.lag());
                assertEquals(KEYS, info.lag());
                assertTrue(info.ageMillis() >= 20, "age " + info.ageMillis());
                assertEquals(Thread.currentThread().getName(), info.threadName());
                assertEquals(Thread.currentThread().getId(), info.threadId());
                assertFalse(info.expired());
            }
            assertTrue(store.readers().stream().noneMatch(r -> !r.checkpoint()));
        }
    }

    @Test
    void aSlowSnapshotIsReportedOnceAndKeptByDefault() {
        List<ReaderInfo> reported = new ArrayList<>();
        SlowReaderPolicy policy = new SlowReaderPolicy(100, Duration.ZERO, r -> {
            reported.add(r);
            return false;
        });
        try (Store store = Store.inMemory(StoreOptions.defaults().slowReaders(policy))) {
            Tree tree = load(store);
            try (Snapshot old = store.beginRead()) {
                overwriteAll(store, tree, 1);
                try (Snapshot fresh = store.beginRead()) {
                    overwriteAll(store, tree, 2);
                    // Each snapshot once, when it passed 100 commits of lag.
                    assertEquals(2, reported.size());
                    assertEquals(old.revision(), reported.get(0).revision());
                    assertEquals(101, reported.get(0).lag());
                    assertEquals(fresh.revision(), reported.get(1).revision());
                    // Kept: both still read their own revision.
                    assertArrayEquals(value(0, 7), old.get(tree, key(7)));
                    assertArrayEquals(value(1, 7), fresh.get(tree, key(7)));
                }
            }
        }
    }

    @Test
    void anExpiredSnapshotThrowsOnItsNextReadAndItsPagesAreReusedOnceClosed() {
        SlowReaderPolicy policy = SlowReaderPolicy.expire(500, Duration.ZERO);
        try (Store store = Store.inMemory(StoreOptions.defaults().slowReaders(policy))) {
            Tree tree = load(store);
            Snapshot old = store.beginRead();
            Cursor cursor = old.cursor(tree);
            assertTrue(cursor.first());
            overwriteAll(store, tree, 1);
            assertTrue(store.readers().stream().anyMatch(ReaderInfo::expired));
            assertThrows(SnapshotExpiredException.class, () -> old.get(tree, key(1)));
            assertThrows(SnapshotExpiredException.class, cursor::next);
            assertThrows(SnapshotExpiredException.class, () -> old.count(tree));
            long pinned = store.stats().pagesWaitingForReaders();
            assertTrue(pinned > 0, "the expired snapshot still pins its pages until closed");
            old.close();
            // The next transactions release what only the old revision could reach.
            overwriteAll(store, tree, 2);
            assertEquals(-1, store.stats().oldestSnapshotRevision());
            assertTrue(store.stats().pagesWaitingForReaders() < pinned / 4,
                    store.stats() + " (pinned before: " + pinned + ")");
            try (Snapshot now = store.beginRead()) {
                assertArrayEquals(value(2, 1), now.get(tree, key(1)));
            }
            assertTrue(store.check().problems().isEmpty(), store.check().problems().toString());
        }
    }

    @Test
    void snapshotsAreSlowByAge() throws Exception {
        AtomicLong reports = new AtomicLong();
        SlowReaderPolicy policy = new SlowReaderPolicy(0, Duration.ofMillis(50), r -> reports.incrementAndGet() > 0);
        try (Store store = Store.inMemory(StoreOptions.defaults().slowReaders(policy))) {
            Tree tree = load(store);
            try (Snapshot old = store.beginRead()) {
                Thread.sleep(120);
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(tree, key(1), value(1, 1));
                    tx.commit();
                }
                assertEquals(1, reports.get());
                assertThrows(SnapshotExpiredException.class, () -> old.get(tree, key(1)));
            }
        }
    }

    /** A reader racing the expiry sees its own revision's values or the exception, nothing else. */
    @Test
    void aReaderRacingItsExpiryNeverSeesAnotherRevision() throws Exception {
        SlowReaderPolicy policy = SlowReaderPolicy.expire(1_000, Duration.ZERO);
        try (Store store = Store.inMemory(StoreOptions.defaults().slowReaders(policy))) {
            Tree tree = load(store);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong readsBeforeExpiry = new AtomicLong();
            CountDownLatch opened = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try (Snapshot s = store.beginRead()) {
                    opened.countDown();
                    for (long n = 0; ; n++) {
                        int i = (int) (n % KEYS);
                        byte[] v;
                        try {
                            v = s.get(tree, key(i));
                        } catch (SnapshotExpiredException expected) {
                            return;
                        }
                        if (!java.util.Arrays.equals(value(0, i), v)) {
                            throw new AssertionError("key " + i + " read another revision's value");
                        }
                        readsBeforeExpiry.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "racing-reader");
            reader.start();
            opened.await();
            for (long round = 1; reader.isAlive() && round < 50; round++) {
                overwriteAll(store, tree, round);
            }
            reader.join(10_000);
            assertFalse(reader.isAlive(), "the reader was never expired");
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(readsBeforeExpiry.get() > 0);
            assertTrue(store.check().problems().isEmpty());
        }
    }
}
