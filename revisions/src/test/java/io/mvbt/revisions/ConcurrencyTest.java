// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers in several threads open snapshots while one writer commits. Every commit rewrites all
 * keys with its own number, so a snapshot must read one number throughout (no half-applied commit)
 * and the numbers a thread sees never go backwards.
 */
class ConcurrencyTest {
    private static final int KEYS = 500;

    @TempDir
    Path dir;

    @Test
    void snapshotsSeeWholeCommitsWhileTheWriterGoesOn() throws Exception {
        race(Store.inMemory());
        race(Store.open(dir.resolve("race.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL)));
    }

    private void race(Store store) throws Exception {
        try (store) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                writeAll(tx, t, 0);
                tx.commit();
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong snapshotsChecked = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                Thread reader = new Thread(() -> {
                    long lastSeen = -1;
                    try {
                        while (!stop.get()) {
                            try (Snapshot s = store.beginRead()) {
                                long first = ByteBuffer.wrap(s.get(t, key(0))).getLong();
                                if (first < lastSeen) {
                                    throw new AssertionError("went back from commit " + lastSeen + " to " + first);
                                }
                                lastSeen = first;
                                int n = 0;
                                try (Cursor c = s.cursor(t)) {
                                    for (boolean ok = c.first(); ok; ok = c.next()) {
                                        long v = c.value().getLong(0, java.nio.ByteOrder.BIG_ENDIAN);
                                        if (v != first) {
                                            throw new AssertionError("snapshot mixes commits " + first + " and " + v);
                                        }
                                        n++;
                                    }
                                }
                                if (n != KEYS || s.count(t) != KEYS) {
                                    throw new AssertionError("snapshot holds " + n + " entries");
                                }
                                snapshotsChecked.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                readers.add(reader);
                reader.start();
            }
            int commits = 1500;
            for (int i = 1; i <= commits && failure.get() == null; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    writeAll(tx, t, i);
                    tx.commit();
                }
            }
            stop.set(true);
            for (Thread reader : readers) {
                reader.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(snapshotsChecked.get() > 0);
            assertEquals(0, store.stats().openSnapshots());
            store.check().throwIfDamaged();
        }
    }

    /**
     * Readers on fresh snapshots (a new one every 100 lookups) while one writer overwrites random
     * keys, one commit each, on a file store that checkpoints every 20 ms: pages are freed, pinned,
     * released and reused all the time, and no reader may ever see a reused page.
     */
    @Test
    void freshSnapshotsNeverSeeReusedPages() throws Exception {
        try (Store store = Store.open(dir.resolve("reuse.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(java.time.Duration.ofMillis(20)))) {
            Tree t;
            int keys = 20_000;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                for (int i = 0; i < keys; i++) {
                    tx.put(t, key(i), valueFor(i, 0));
                }
                tx.commit();
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                long seed = r;
                Thread reader = new Thread(() -> {
                    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
                    try {
                        while (!stop.get()) {
                            try (Snapshot s = store.beginRead()) {
                                for (int n = 0; n < 100; n++) {
                                    int i = random.nextInt(keys);
                                    byte[] v = s.get(t, key(i));
                                    if (v == null || ByteBuffer.wrap(v).getInt() != i) {
                                        throw new AssertionError("key " + i + " read " + (v == null ? "nothing" : "a value of "
                                                + ByteBuffer.wrap(v).getInt()));
                                    }
                                }
                                reads.addAndGet(100);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                readers.add(reader);
                reader.start();
            }
            java.util.SplittableRandom random = new java.util.SplittableRandom(9);
            for (int c = 1; c <= 30_000 && failure.get() == null; c++) {
                try (WriteTxn tx = store.beginWrite()) {
                    int i = random.nextInt(keys);
                    tx.put(t, key(i), valueFor(i, c));
                    tx.commit();
                }
            }
            stop.set(true);
            for (Thread reader : readers) {
                reader.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(reads.get() > 0);
            store.check().throwIfDamaged();
        }
    }

    private static byte[] valueFor(int key, int commit) {
        return ByteBuffer.allocate(100).putInt(key).putInt(commit).array();
    }

    private static void writeAll(WriteTxn tx, Tree t, long commit) {
        byte[] v = ByteBuffer.allocate(100).putLong(commit).array();
        for (int i = 0; i < KEYS; i++) {
            tx.put(t, key(i), v);
        }
    }

    private static byte[] key(int i) {
        return String.format("key-%05d", i).getBytes();
    }
}
