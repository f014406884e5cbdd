// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.cursor.Range;
import io.mvbt.cursor.RangeCursor;
import io.mvbt.testkit.Profile;

/**
 * ApacheDS's search-while-modify problem (the one that moved it to an MVCC tree): 20 threads, each
 * looping over: add entry {@code test<N>} (a master tree and an index tree, one transaction); search
 * the index by prefix {@code test} and fetch every match from the master tree on the same snapshot;
 * delete {@code test<N>}. Every fetch must find its entry (no missing fetches), every entry must be
 * the one its index key names (no stale reads), every search must see the thread's own entry, and
 * nothing may throw. Loops per thread: 200 short, 10,000 long ({@code -Dmvbt.race.loops=N}).
 */
class SearchWhileModifyTest {
    private static final int THREADS = 20;
    private static final byte[] PREFIX = "test".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    @Test
    void searchesOnSnapshotsNeverSeeHalfWrittenEntries() throws Exception {
        int loops = Profile.size("mvbt.race.loops", 200, 10_000);
        try (Store store = Store.open(dir.resolve("race.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL)
                .writeTimeout(java.time.Duration.ofMinutes(1)))) {
            Tree master;
            Tree index;
            try (WriteTxn tx = store.beginWrite()) {
                master = tx.createTree("master");
                index = tx.createTree("index");
                tx.commit();
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong searches = new AtomicLong();
            AtomicLong fetches = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Thread worker = new Thread(() -> {
                    try {
                        for (int i = 0; i < loops && failure.get() == null; i++) {
                            long id = (long) thread * loops + i;
                            byte[] name = ("test" + id).getBytes(StandardCharsets.US_ASCII);
                            byte[] idKey = ByteBuffer.allocate(8).putLong(id).array();
                            byte[] indexKey = ByteBuffer.allocate(name.length + 8).put(name).putLong(id).array();
                            byte[] entry = ("cn=" + new String(name, StandardCharsets.US_ASCII) + ",ou=system")
                                    .getBytes(StandardCharsets.US_ASCII);
                            try (WriteTxn tx = store.beginWrite()) {
                                tx.put(master, idKey, entry);
                                tx.put(index, indexKey, idKey);
                                tx.commit();
                            }
                            boolean sawOwn = false;
                            try (Snapshot s = store.beginRead();
                                    RangeCursor c = Range.over(s, index).from(PREFIX).cursor()) {
                                while (c.next()) {
                                    byte[] key = c.keyBytes();
                                    if (!startsWith(key, PREFIX)) {
                                        break;
                                    }
                                    byte[] matchId = c.valueBytes();
                                    byte[] found = s.get(master, matchId);
                                    if (found == null) {
                                        throw new AssertionError("index names entry "
                                                + ByteBuffer.wrap(matchId).getLong() + " that the master tree lacks");
                                    }
                                    String expected = "cn=" + new String(key, 0, key.length - 8,
                                            StandardCharsets.US_ASCII) + ",ou=system";
                                    if (!expected.equals(new String(found, StandardCharsets.US_ASCII))) {
                                        throw new AssertionError("stale read: " + new String(found,
                                                StandardCharsets.US_ASCII) + " for " + expected);
                                    }
                                    sawOwn |= Arrays.equals(matchId, idKey);
                                    fetches.incrementAndGet();
                                }
                            }
                            if (!sawOwn) {
                                throw new AssertionError("a search after its own commit missed test" + id);
                            }
                            searches.incrementAndGet();
                            try (WriteTxn tx = store.beginWrite()) {
                                tx.delete(master, idKey);
                                tx.delete(index, indexKey);
                                tx.commit();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                threads.add(worker);
                worker.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            System.out.println("search while modify: " + THREADS + " threads x " + loops + " loops, "
                    + searches.get() + " searches, " + fetches.get() + " fetches, 0 errors, 0 missing, 0 stale");
            assertEquals((long) THREADS * loops, searches.get());
            try (Snapshot s = store.beginRead()) {
                assertEquals(0, s.count(master));
                assertEquals(0, s.count(index));
            }
            store.check().throwIfDamaged();
        }
    }

    /**
     * Readers never wait for the writer, and the writer never waits for a reader: with one writer
     * thread and more reader threads than cores scanning all the time, the writer's only waits are
     * at the meta lock, and only for checkpoints (shown by counts, not timings).
     */
    @Test
    void readersAndTheWriterNeverWaitForEachOther() throws Exception {
        try (Store store = Store.open(dir.resolve("independent.mvbt"), StoreOptions.defaults()
                .durability(Durability.NORMAL).checkpointInterval(java.time.Duration.ofMillis(50)))) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                for (int i = 0; i < 20_000; i++) {
                    tx.put(t, ByteBuffer.allocate(8).putLong(i).array(), new byte[50]);
                }
                tx.commit();
            }
            StoreStats before = store.stats();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            int readers = Runtime.getRuntime().availableProcessors() + 2;
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int r = 0; r < readers; r++) {
                Thread reader = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            try (Snapshot s = store.beginRead(); Cursor c = s.cursor(t)) {
                                long n = 0;
                                for (boolean ok = c.first(); ok; ok = c.next()) {
                                    n++;
                                }
                                if (n != 20_000) {
                                    throw new AssertionError("scan saw " + n + " entries");
                                }
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                threads.add(reader);
                reader.start();
            }
            java.util.SplittableRandom random = new java.util.SplittableRandom(3);
            for (int c = 0; c < 20_000; c++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(t, ByteBuffer.allocate(8).putLong(random.nextInt(20_000)).array(), new byte[50]);
                    tx.commit();
                }
            }
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            StoreStats after = store.stats();
            long writerWaits = after.writerWaits() - before.writerWaits();
            long metaWaits = after.metaLockWaits() - before.metaLockWaits();
            long checkpoints = after.checkpoints() - before.checkpoints();
            System.out.println("independence: " + readers + " readers scanning beside one writer, 20,000 commits: "
                    + writerWaits + " writer waits, " + metaWaits + " meta-lock waits in " + checkpoints
                    + " checkpoints, no reader lock exists");
            // No reader ever takes the writer; the checkpointer does, for a moment after each
            // checkpoint, to give the file's free tail back, so the writer meets it at most that often.
            assertTrue(writerWaits <= checkpoints, writerWaits + " writer waits for " + checkpoints
                    + " checkpoints, with no other writer");
            // A checkpoint takes the meta lock twice; the writer meets it there at most that often.
            assertTrue(metaWaits <= 2 * checkpoints + 2, metaWaits + " meta-lock waits for " + checkpoints
                    + " checkpoints");
            store.check().throwIfDamaged();
        }
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
