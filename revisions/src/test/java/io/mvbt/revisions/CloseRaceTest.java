// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.ClosedException;

/**
 * A close racing readers and a writer in other threads, many rounds: the others end with
 * {@link ClosedException}, never with a crash, another exception or a wrong answer, and nothing
 * committed is lost or damaged. A failing round prints its seed.
 */
class CloseRaceTest {
    private static final int ROUNDS = 40;
    private static final int KEYS = 2_000;
    private static final long SEED = Long.getLong("mvbt.closeRace.seed", System.nanoTime());

    @TempDir
    Path dir;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    static byte[] key(int i) {
        return ByteBuffer.allocate(8).putInt(0x6b657900).putInt(i).array();
    }

    /** The value of key {@code i} written in batch {@code batch}. */
    static byte[] value(int i, long batch) {
        return ByteBuffer.allocate(24).putLong(batch).putInt(i).putInt(~i).putLong(batch ^ i).array();
    }

    @Test
    void readersInOtherThreadsEndWithClosedException() throws Exception {
        SplittableRandom seeds = new SplittableRandom(SEED);
        for (int round = 0; round < ROUNDS; round++) {
            long seed = seeds.nextLong();
            try {
                readersRound(dir.resolve("readers-" + round + ".mvbt"), seed);
            } catch (AssertionError | Exception e) {
                throw new AssertionError("round " + round + " failed; replay with -Dmvbt.closeRace.seed=" + SEED, e);
            }
        }
    }

    private void readersRound(Path path, long seed) throws Exception {
        SplittableRandom rng = new SplittableRandom(seed);
        Store store = Store.open(path);
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), value(i, 0));
            }
            tx.commit();
        }
        Tree t = store.tree("t");
        // Snapshots opened here and read elsewhere: a snapshot may be read from several threads.
        Snapshot shared = store.beginRead();
        CountDownLatch reading = new CountDownLatch(3);
        List<CompletableFuture<Long>> readers = new ArrayList<>();
        readers.add(CompletableFuture.supplyAsync(() -> getLoop(shared, t, reading, rng.nextLong()), threads));
        readers.add(CompletableFuture.supplyAsync(() -> cursorLoop(shared, t, reading), threads));
        readers.add(CompletableFuture.supplyAsync(() -> {
            // A snapshot and cursor of the reading thread's own.
            Snapshot own = store.beginRead();
            return cursorLoop(own, t, reading);
        }, threads));
        assertTrue(reading.await(30, TimeUnit.SECONDS));
        Thread.sleep(rng.nextInt(5));
        store.close();
        for (CompletableFuture<Long> reader : readers) {
            // Each ends by itself with ClosedException; anything else fails the round.
            assertTrue(reader.get(30, TimeUnit.SECONDS) > 0);
        }
    }

    /** Gets random keys until the close; returns the reads made. */
    private static long getLoop(Snapshot s, Tree t, CountDownLatch reading, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        long reads = 0;
        reading.countDown();
        try {
            while (true) {
                int i = rng.nextInt(KEYS + 10);
                byte[] v = s.get(t, key(i));
                if (i < KEYS) {
                    assertArrayEquals(value(i, 0), v, "key " + i);
                } else {
                    assertNull(v, "key " + i);
                }
                reads++;
            }
        } catch (ClosedException expected) {
            return reads + 1;
        }
    }

    /** Walks the tree forward, checking every entry, until the close; returns the entries seen. */
    private static long cursorLoop(Snapshot s, Tree t, CountDownLatch reading) {
        long seen = 0;
        reading.countDown();
        try (Cursor c = s.cursor(t)) {
            while (true) {
                int i = 0;
                for (boolean on = c.first(); on; on = c.next()) {
                    assertArrayEquals(key(i), c.keyBytes());
                    assertArrayEquals(value(i, 0), c.valueBytes(), "key " + i);
                    i++;
                    seen++;
                }
                assertEquals(KEYS, i);
            }
        } catch (ClosedException expected) {
            return seen + 1;
        }
    }

    @Test
    void closeRacingAPutLoopLosesNothingCommitted() throws Exception {
        SplittableRandom seeds = new SplittableRandom(SEED);
        for (int round = 0; round < ROUNDS; round++) {
            long seed = seeds.nextLong();
            try {
                writerRound(dir.resolve("writer-" + round + ".mvbt"), seed);
            } catch (AssertionError | Exception e) {
                throw new AssertionError("round " + round + " failed; replay with -Dmvbt.closeRace.seed=" + SEED, e);
            }
        }
    }

    /**
     * Batches of puts rewrite a random run of keys with the batch's number, one transaction each,
     * until the close; a reopen then finds exactly the batches whose commit returned.
     */
    private void writerRound(Path path, long seed) throws Exception {
        SplittableRandom rng = new SplittableRandom(seed);
        Store store = Store.open(path);
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), value(i, 0));
            }
            tx.commit();
        }
        // Batch b wrote keys [from, from + count); the model is rebuilt from these after the reopen.
        List<int[]> committed = new ArrayList<>();
        AtomicLong batches = new AtomicLong();
        CountDownLatch writing = new CountDownLatch(1);
        long writerSeed = rng.nextLong();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            SplittableRandom w = new SplittableRandom(writerSeed);
            Tree t = store.tree("t");
            try {
                for (long b = 1;; b++) {
                    int count = 1 + w.nextInt(300);
                    int from = w.nextInt(KEYS - count);
                    WriteTxn tx = store.beginWrite();
                    for (int i = from; i < from + count; i++) {
                        tx.put(t, key(i), value(i, b));
                        if (i == from) {
                            writing.countDown();
                        }
                    }
                    if (w.nextInt(8) == 0) {
                        // Some transactions grow the tree too: splits, new pages, a longer file.
                        tx.put(t, key(KEYS + (int) b), value(KEYS + (int) b, b));
                    }
                    tx.commit();
                    synchronized (committed) {
                        committed.add(new int[] {from, count, (int) b});
                    }
                    batches.set(b);
                }
            } catch (ClosedException expected) {
                // The close came: this batch, if begun, was aborted.
            }
        }, threads);
        assertTrue(writing.await(30, TimeUnit.SECONDS));
        Thread.sleep(rng.nextInt(20));
        store.close();
        writer.get(30, TimeUnit.SECONDS);

        byte[][] expected = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            expected[i] = value(i, 0);
        }
        List<Integer> extra = new ArrayList<>();
        synchronized (committed) {
            for (int[] batch : committed) {
                for (int i = batch[0]; i < batch[0] + batch[1]; i++) {
                    expected[i] = value(i, batch[2]);
                }
            }
        }
        try (Store again = Store.open(path)) {
            assertTrue(again.check().ok(), () -> again.check().problems().toString());
            Tree t = again.tree("t");
            try (Snapshot s = again.beginRead()) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(expected[i], s.get(t, key(i)), "key " + i);
                }
                long grown = s.count(t) - KEYS;
                for (int[] batch : committed) {
                    byte[] v = s.get(t, key(KEYS + batch[2]));
                    if (v != null) {
                        extra.add(batch[2]);
                    }
                }
                assertEquals(grown, extra.size(), "keys added by aborted transactions");
                // The batch that was open at the close (if any) left nothing.
                assertNull(s.get(t, key(KEYS + (int) batches.get() + 1)));
            }
        }
    }
}
