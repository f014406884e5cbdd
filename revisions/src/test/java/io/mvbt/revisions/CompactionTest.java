// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.mvbt.CorruptionException;
import io.mvbt.StoreFailedException;
import io.mvbt.btree.TreeLimits;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * Compaction at close: a store whose pages in use are spread over its file (inserts, then most keys
 * deleted, a tree dropped) moves them down when it closes, and the file ends at its last used page,
 * with every entry as committed.
 */
class CompactionTest {
    private static final String[] TREES = {"a", "b"};

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {4096, 16384, 65536})
    void closingMovesThePagesInUseDownAndTheFileEndsAtTheLastOne(int pageSize) throws IOException {
        Path file = dir.resolve("c.mvbt");
        StoreOptions options = StoreOptions.defaults().pageSize(pageSize).durability(Durability.NORMAL);
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        long pagesBefore;
        try (Store store = Store.open(file, options)) {
            spread(store, model, new Random(pageSize), pageSize);
            store.sync();
            pagesBefore = store.stats().pagesInFile();
            long inUse = store.stats().pagesInUse();
            assertTrue(pagesBefore - inUse > pagesBefore / 4,
                    "the workload leaves a quarter of the file free: " + inUse + " of " + pagesBefore + " in use");
        }
        try (Store store = Store.open(file, options)) {
            StoreStats stats = store.stats();
            assertEquals(0, stats.pagesWaitingForReaders());
            assertEquals(stats.pagesInFile() * (long) pageSize, Files.size(file));
            String pages = stats.pagesInUse() + " pages in use of " + stats.pagesInFile() + " (" + pagesBefore
                    + " before close)";
            // The file ends at its last used page (rounded up to the unit of growth, a MiB) ...
            long chunk = (1 << 20) / pageSize;
            long tailStart = store.space().reusableTailStart();
            assertEquals((tailStart + chunk - 1) / chunk * chunk, stats.pagesInFile(), pages);
            // ... and no more free pages lie below it than those the move left room for: the
            // branch pages it may copy on the way, and a few.
            long branches = 0;
            try (Snapshot s = store.beginRead()) {
                for (String name : TREES) {
                    branches += s.treeStats(store.tree(name)).branchPages();
                }
            }
            assertTrue(stats.pagesInFile() - stats.pagesInUse() <= branches + 64 + 8 + chunk, pages);
            assertTrue(stats.pagesInFile() < pagesBefore / 2, pages);
            store.check().throwIfDamaged();
            assertHolds(store, model);
        }
    }

    @Test
    void compactGivesTheSpaceBackToAStoreThatStaysOpen() throws IOException {
        Path file = dir.resolve("open.mvbt");
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        try (Store store = Store.open(file, StoreOptions.defaults().durability(Durability.NORMAL))) {
            spread(store, model, new Random(5), 4096);
            store.sync();
            long before = Files.size(file);
            try (Snapshot pinned = store.beginRead()) {
                store.compact();
                // The moved pages' old copies are the snapshot's: it reads what it read.
                assertHolds(store, pinned, model);
                assertTrue(store.stats().pagesWaitingForReaders() > 0, "the snapshot pins the old copies");
            }
            long given = store.compact();
            assertTrue(given > 0 && Files.size(file) == before - given && Files.size(file) < before / 2,
                    before + " bytes before, " + given + " given back");
            assertEquals(0, store.stats().pagesWaitingForReaders());
            store.check().throwIfDamaged();
            assertHolds(store, model);
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(store.tree("a"), "after".getBytes(), "compaction".getBytes());
                tx.commit();
            }
            model.get("a").put("after".getBytes(), "compaction".getBytes());
            assertHolds(store, model);
        }
        try (Store store = Store.open(file)) {
            assertHolds(store, model);
            store.check().throwIfDamaged();
        }
    }

    @Test
    void aReaderElsewhereKeepsThePagesWhereTheyAre() {
        Path file = dir.resolve("r.mvbt");
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL);
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        try (Store store = Store.open(file, options)) {
            spread(store, model, new Random(7), 4096);
        }
        Map<String, TreeMap<byte[], byte[]>> seen = ModelHarness.deepCopy(model);
        try (Store writer = Store.open(file, options); Store other = Store.openReadOnly(file);
                Snapshot pinned = other.beginRead()) {
            deleteMost(writer, model, new Random(8));
            writer.close();
            // The writer's close found the snapshot elsewhere: what it reaches stayed where it was.
            assertHolds(other, pinned, seen);
        }
        long pages;
        try (Store store = Store.open(file, options)) {
            pages = store.stats().pagesInFile();
            assertHolds(store, model);
        }
        try (Store store = Store.open(file, options)) {
            assertTrue(store.stats().pagesInFile() < pages, "once the reader is gone a close compacts");
            assertHolds(store, model);
            store.check().throwIfDamaged();
        }
    }

    @Test
    void aDamagedPageMetOnTheWayFailsTheCloseAndChangesNothing() throws IOException {
        Path file = dir.resolve("d.mvbt");
        StoreOptions keep = StoreOptions.defaults().durability(Durability.NORMAL).compactAtClose(false);
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        long highest;
        long revision;
        try (Store store = Store.open(file, keep)) {
            spread(store, model, new Random(3), 4096);
            store.sync();
            highest = store.stats().pagesInFile() - 1;
            while (!store.space().inUse.get(highest)) {
                highest--;
            }
            revision = store.revision();
        }
        byte[] before = Files.readAllBytes(file);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.WRITE)) {
            // A byte in the middle of the highest page in use: the compaction must move it, and reads it first.
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {(byte) ~before[(int) (highest * 4096 + 2048)]}),
                    highest * 4096 + 2048);
        }
        Store store = Store.open(file, StoreOptions.defaults().durability(Durability.NORMAL));
        CorruptionException e = assertThrows(CorruptionException.class, store::close);
        assertEquals(highest, e.pageNo(), e.getMessage());
        try (Store again = Store.open(file, keep)) {
            assertEquals(revision, again.revision(), "the failed compaction committed nothing");
            assertEquals(before.length, Files.size(file));
        }
    }

    /**
     * A power cut at every sync of a compacting close leaves the store as committed before it, and a
     * named revision (taken before the store grew, so the compaction moves pages around its own)
     * reads as it was named.
     */
    @ParameterizedTest(name = "named={0}")
    @ValueSource(booleans = {false, true})
    void aPowerCutDuringTheCompactionLosesNothing(boolean named) {
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL);
        int syncsAtClose = -1;
        for (int cutAt = 1; syncsAtClose < 0 || cutAt <= syncsAtClose + 1; cutAt++) {
            PowerCutPageStore disk = new PowerCutPageStore(4096);
            Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
            Map<String, TreeMap<byte[], byte[]>> kept = null;
            Random random = new Random(cutAt);
            byte[] image;
            Store store = Store.over(disk, options, true);
            try {
                if (named) {
                    NamedCompactionTest.write(store, model, new Random(13), 10, 150);
                    store.retain("keep");
                    kept = ModelHarness.deepCopy(model);
                }
                spread(store, model, new Random(11), 4096);
                store.sync();
                long syncsBefore = disk.syncs();
                disk.cutDuringSync(syncsBefore + cutAt, random);
                store.close();
                if (disk.cutImage() == null) {
                    syncsAtClose = (int) (disk.syncs() - syncsBefore);
                }
            } catch (StoreFailedException e) {
                // The power went during the close.
            } finally {
                store.close();
            }
            image = disk.cutImage() != null ? disk.cutImage() : disk.cut(random);
            long high = BootId.HIGH;
            long low = BootId.LOW;
            BootId.reboot();
            try (Store recovered = Store.over(PowerCutPageStore.of(image, 4096), options, false)) {
                recovered.check().throwIfDamaged();
                assertHolds(recovered, model);
                if (kept != null) {
                    try (Snapshot s = recovered.beginRead("keep")) {
                        assertHolds(recovered, s, kept);
                    }
                }
            } finally {
                // Other tests in this JVM start writers in child processes, which must trust our metas.
                BootId.HIGH = high;
                BootId.LOW = low;
            }
        }
        assertTrue(syncsAtClose >= 2, "a compacting close syncs at least twice, not " + syncsAtClose);
    }

    /**
     * Commits entries across the input space (keys up to the limit, values inline and in overflow
     * runs), drops a tree, and deletes most keys, last ones late: the pages in use end spread.
     */
    private static void spread(Store store, Map<String, TreeMap<byte[], byte[]>> model, Random random,
            int pageSize) {
        TreeLimits limits = new TreeLimits(pageSize);
        for (int commit = 0; commit < 60; commit++) {
            try (WriteTxn tx = store.beginWrite()) {
                for (int i = 0; i < 150; i++) {
                    String name = TREES[random.nextInt(TREES.length)];
                    byte[] key = new byte[1 + random.nextInt(random.nextInt(8) == 0 ? limits.maxKeySize : 24)];
                    random.nextBytes(key);
                    byte[] value = new byte[random.nextInt(20) == 0 ? random.nextInt(3 * pageSize)
                            : random.nextInt(200)];
                    random.nextBytes(value);
                    tx.put(tx.createTreeIfAbsent(name), key, value);
                    model.computeIfAbsent(name, n -> ModelHarness.newMap()).put(key, value);
                }
                Tree doomed = tx.createTreeIfAbsent("doomed");
                tx.put(doomed, ("k" + commit).getBytes(), new byte[pageSize]);
                tx.commit();
            }
        }
        try (WriteTxn tx = store.beginWrite()) {
            tx.dropTree(store.tree("doomed"));
            tx.commit();
        }
        deleteMost(store, model, random);
    }

    /** Deletes about three quarters of the keys: a range in each tree, then single keys. */
    static void deleteMost(Store store, Map<String, TreeMap<byte[], byte[]>> model, Random random) {
        for (String name : TREES) {
            TreeMap<byte[], byte[]> m = model.get(name);
            byte[] from = m.firstKey();
            byte[] to = m.keySet().stream().skip(m.size() / 2).findFirst().orElseThrow();
            try (WriteTxn tx = store.beginWrite()) {
                tx.deleteRange(store.tree(name), from, to);
                tx.commit();
            }
            m.subMap(from, true, to, false).clear();
            byte[][] keys = m.keySet().toArray(new byte[0][]);
            for (int i = 0; i < keys.length; i += 64) {
                try (WriteTxn tx = store.beginWrite()) {
                    for (int j = i; j < Math.min(i + 64, keys.length); j++) {
                        if (random.nextInt(2) == 0) {
                            tx.delete(store.tree(name), keys[j]);
                            m.remove(keys[j]);
                        }
                    }
                    tx.commit();
                }
            }
        }
    }

    private static void assertHolds(Store store, Map<String, TreeMap<byte[], byte[]>> model) {
        try (Snapshot s = store.beginRead()) {
            assertHolds(store, s, model);
        }
    }

    private static void assertHolds(Store store, ReadView view, Map<String, TreeMap<byte[], byte[]>> model) {
        assertTrue(!view.treeNames().contains("doomed"), "the dropped tree stays dropped");
        for (String name : TREES) {
            Tree tree = store.tree(name);
            TreeMap<byte[], byte[]> m = model.get(name);
            assertNull(CrashWorkload.difference(view, tree, m), "tree " + name);
            Map.Entry<byte[], byte[]> last = m.lastEntry();
            assertArrayEquals(last.getValue(), view.get(tree, last.getKey()));
        }
    }
}
