// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pages freed by commits are reused: a steady overwrite workload stops growing the file, and one
 * long-lived snapshot pins only what its own revision can see (bbolt's rule), not everything
 * written after it (LMDB's).
 */
class ReclamationTest {
    private static final int KEYS = 10_000;
    private static final int GROWTH_STEP_PAGES = (1 << 20) / 4096;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes();
    }

    private static byte[] value(Random random) {
        byte[] v = new byte[100];
        random.nextBytes(v);
        return v;
    }

    private Store load(String name) {
        Store store = Store.open(dir.resolve(name), StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofMillis(20)));
        Random random = new Random(1);
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), value(random));
            }
            tx.commit();
        }
        store.sync();
        return store;
    }

    private static void overwrite(Store store, Random random, int commits) {
        Tree t = store.tree("t");
        for (int i = 0; i < commits; i++) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(t, key(random.nextInt(KEYS)), value(random));
                tx.commit();
            }
            if (i % 3 == 0) {
                // A short-lived reader, as a lookup would open.
                try (Snapshot s = store.beginRead()) {
                    s.get(t, key(random.nextInt(KEYS)));
                }
            }
        }
    }

    @Test
    void steadyOverwritesStopGrowingTheFile() {
        try (Store store = load("steady.mvbt")) {
            Random random = new Random(2);
            overwrite(store, random, 20_000);
            long afterWarmUp = store.stats().pagesInFile();
            overwrite(store, random, 40_000);
            StoreStats end = store.stats();
            // Bound: no growth at all past warm-up, beyond one growth step of slack.
            assertTrue(end.pagesInFile() <= afterWarmUp + GROWTH_STEP_PAGES,
                    "file grew from " + afterWarmUp + " to " + end.pagesInFile() + " pages");
            // And the file is at most twice the live data (the durable revision may pin its own pages)
            // plus a growth step.
            assertTrue(end.pagesInFile() <= 2 * end.pagesInUse() + 2 * GROWTH_STEP_PAGES,
                    "file of " + end.pagesInFile() + " pages for " + end.pagesInUse() + " live ones");
            store.check().throwIfDamaged();
        }
    }

    @Test
    void aLongLivedSnapshotPinsOnlyWhatItCanSee() {
        try (Store store = load("pinned.mvbt")) {
            Tree t = store.tree("t");
            long live = store.stats().pagesInUse();
            byte[][] expected = new byte[KEYS][];
            try (Snapshot pinned = store.beginRead()) {
                for (int i = 0; i < KEYS; i++) {
                    expected[i] = pinned.get(t, key(i));
                }
                Random random = new Random(3);
                overwrite(store, random, 20_000);
                long middle = store.stats().pagesInFile();
                overwrite(store, random, 20_000);
                StoreStats end = store.stats();
                // The pinned revision holds at most its own tree (about the live size); the newest
                // revision and the durable one hold one each: growth stops, bounded by 3x live.
                assertTrue(end.pagesInFile() <= middle + GROWTH_STEP_PAGES,
                        "file kept growing under one long reader: " + middle + " -> " + end.pagesInFile());
                assertTrue(end.pagesInFile() <= 3 * live + 2 * GROWTH_STEP_PAGES,
                        "file of " + end.pagesInFile() + " pages, live data " + live);
                assertTrue(end.pagesWaitingForReaders() > 0, "the pinned revision keeps pages waiting");
                store.check().throwIfDamaged();
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(expected[i], pinned.get(t, key(i)), "pinned snapshot, key " + i);
                }
                assertEquals(KEYS, pinned.count(t));
            }
            // Once the snapshot is gone, its pages are released at the next commits and checkpoint.
            store.sync();
            overwrite(store, new Random(4), 10);
            store.sync();
            overwrite(store, new Random(5), 10);
            assertEquals(0, store.stats().openSnapshots());
            assertTrue(store.stats().pagesWaitingForReaders() < live / 2,
                    "pages still waiting: " + store.stats().pagesWaitingForReaders());
            store.check().throwIfDamaged();
        }
    }

    @Test
    void pagesOfRevisionsNobodyHeldAreReusedAtOnce() {
        try (Store store = Store.inMemory()) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTree("t");
                for (int i = 0; i < KEYS; i++) {
                    tx.put(t, key(i), new byte[100]);
                }
                tx.commit();
            }
            Random random = new Random(6);
            overwrite(store, random, 5_000);
            long pages = store.stats().pagesInFile();
            overwrite(store, random, 5_000);
            StoreStats end = store.stats();
            // No durable revision in memory, no reader between commits: the file never grows.
            assertEquals(pages, end.pagesInFile());
            assertEquals(0, end.pagesWaitingForReaders());
        }
    }
}
