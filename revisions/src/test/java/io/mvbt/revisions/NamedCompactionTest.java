// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import org.agrona.DirectBuffer;
import org.agrona.collections.LongHashSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.mvbt.btree.TreeWalker;
import io.mvbt.pagestore.PageStore;

/**
 * Compaction beside named revisions (change feeds and backup chains keep one for good): the pages
 * only the newest revision reaches move down around the pages a name pins, which stay where they
 * are, and the file ends at the last page still in use. Every name reads what it read, and its
 * diff to the newest is what the models say.
 */
class NamedCompactionTest {
    private static final String[] TREES = {"a", "b"};

    @TempDir
    Path dir;

    private static StoreOptions options(boolean redo) {
        return StoreOptions.defaults().checked(true).durability(Durability.NORMAL).redoLog(redo);
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void closingAStoreWithANamedRevisionGivesTheFreeTailBack(boolean redo) throws Exception {
        Path file = dir.resolve("c.mvbt");
        Map<String, TreeMap<byte[], byte[]>> model = new TreeMap<>();
        Map<String, TreeMap<byte[], byte[]>> kept;
        long bytesBefore;
        long heldBefore;
        try (Store store = Store.open(file, options(redo))) {
            Random random = new Random(17);
            write(store, model, random, 10, 150);
            store.retain("keep");
            kept = ModelHarness.deepCopy(model);
            // The store grows far past what the name reaches, then most of it goes.
            write(store, model, random, 60, 150);
            CompactionTest.deleteMost(store, model, random);
            store.sync();
            bytesBefore = Files.size(file);
            StoreStats stats = store.stats();
            heldBefore = stats.pagesInUse() + stats.pagesWaitingForReaders();
        }
        long bytesAfter = Files.size(file);
        try (Store store = Store.open(file, options(redo))) {
            StoreStats stats = store.stats();
            String sizes = bytesBefore + " bytes before the close, " + bytesAfter + " after";
            assertTrue(bytesAfter < bytesBefore * 2 / 3, sizes);
            // The pages the name shares with the newest were not copied: what is held did not grow.
            assertTrue(stats.pagesInUse() + stats.pagesWaitingForReaders() <= heldBefore,
                    (stats.pagesInUse() + stats.pagesWaitingForReaders()) + " pages held, " + heldBefore
                            + " before; " + sizes);
            assertNamesHold(store, Map.of("keep", kept), model);
        }
    }

    /**
     * A relocation bounded by a named revision moves every page only the newest reaches, even with
     * the limit at the first page, and not one it shares with the name: a copy of one would be in use
     * while its original waits for the name.
     */
    @Test
    void relocationMovesWhatOnlyTheNewestReachesAndNothingItSharesWithAName() {
        try (Store store = Store.open(dir.resolve("r.mvbt"), options(false))) {
            Map<String, TreeMap<byte[], byte[]>> model = new TreeMap<>();
            Random random = new Random(31);
            write(store, model, random, 20, 150);
            long named = store.retain("keep");
            Map<String, TreeMap<byte[], byte[]>> kept = ModelHarness.deepCopy(model);
            write(store, model, random, 2, 30);
            LongHashSet ofName;
            LongHashSet before;
            try (Snapshot name = store.beginRead("keep"); Snapshot newest = store.beginRead()) {
                ofName = treePages(store, name);
                before = treePages(store, newest);
            }
            try (WriteTxn tx = store.beginWrite()) {
                tx.relocate(PageStore.META_SLOTS, named);
                tx.commit();
            }
            LongHashSet after;
            try (Snapshot newest = store.beginRead()) {
                after = treePages(store, newest);
            }
            long shared = 0;
            for (long p : before) {
                if (ofName.contains(p)) {
                    shared++;
                    assertTrue(after.contains(p), "page " + p + " of both the name and the newest moved");
                } else {
                    assertTrue(!after.contains(p), "page " + p + " only the newest reached stayed");
                }
            }
            assertTrue(shared > 0 && shared < before.size(), shared + " of " + before.size() + " pages shared");
            assertEquals(before.size(), after.size(), "pages of the trees before and after the move");
            assertNamesHold(store, Map.of("keep", kept), model);
        }
    }

    /** The first page of every node and overflow run of the user's trees in {@code s}. */
    private static LongHashSet treePages(Store store, Snapshot s) {
        LongHashSet pages = new LongHashSet();
        for (String name : TREES) {
            TreeWalker.walk(s.rev().reader(store.access()), s.rootOf(store.tree(name)), -1,
                    new TreeWalker.Visitor() {
                        @Override
                        public void node(long pageNo, long revision, long address, int level) {
                            pages.add(pageNo);
                        }

                        @Override
                        public void overflow(long pageNo, long revision, long address) {
                            pages.add(pageNo);
                        }
                    });
        }
        return pages;
    }

    @Test
    void compactGivesSpaceBackBesideNamesAndAReaderOfOne() throws Exception {
        Path file = dir.resolve("open.mvbt");
        Map<String, TreeMap<byte[], byte[]>> model = new TreeMap<>();
        Map<String, Map<String, TreeMap<byte[], byte[]>>> names = new TreeMap<>();
        try (Store store = Store.open(file, options(false))) {
            Random random = new Random(23);
            write(store, model, random, 8, 150);
            store.retain("first");
            names.put("first", ModelHarness.deepCopy(model));
            write(store, model, random, 8, 150);
            store.retain("second");
            names.put("second", ModelHarness.deepCopy(model));
            write(store, model, random, 50, 150);
            CompactionTest.deleteMost(store, model, random);
            store.sync();
            long before = Files.size(file);
            long diffPages = diffPagesRead(store, "first") + diffPagesRead(store, "second");
            try (Snapshot first = store.beginRead("first")) {
                long given = store.compact();
                assertTrue(given > before / 4 && Files.size(file) == before - given,
                        before + " bytes before, " + given + " given back");
                // A snapshot of a name reads what it read: nothing it reaches moved.
                assertHolds(store, first, names.get("first"));
            }
            // Only pages no name shares moved, which a diff from a name read anyway.
            assertEquals(diffPages, diffPagesRead(store, "first") + diffPagesRead(store, "second"),
                    "pages the diffs from the names to the newest read");
            assertNamesHold(store, names, model);
            store.update(tx -> tx.put(store.tree("a"), "after".getBytes(), "compaction".getBytes()));
            model.get("a").put("after".getBytes(), "compaction".getBytes());
            store.release("first");
            names.remove("first");
            assertNamesHold(store, names, model);
        }
        try (Store store = Store.open(file, options(false))) {
            assertNamesHold(store, names, model);
        }
    }

    private static long diffPagesRead(Store store, String name) {
        try (Snapshot named = store.beginRead(name); Snapshot newest = store.beginRead()) {
            return named.diff(newest, (tree, key, oldValue, newValue) -> { }).pagesRead();
        }
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void randomHistoriesWithNamesReleasesAndCompactionsMatchTheModels(boolean redo) {
        long saved = Compaction.minimumGainBytes;
        Compaction.minimumGainBytes = 0;
        try {
            long first = Long.getLong("mvbt.seed", new Random().nextLong());
            for (long seed = first; seed < first + 6; seed++) {
                try {
                    history(seed, redo);
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError("seed " + seed + " (-Dmvbt.seed=" + seed + ", redoLog=" + redo + ") fails",
                            e);
                }
            }
        } finally {
            Compaction.minimumGainBytes = saved;
        }
    }

    private void history(long seed, boolean redo) {
        Path file = dir.resolve("h-" + seed + "-" + redo + ".mvbt");
        Random random = new Random(seed);
        Map<String, TreeMap<byte[], byte[]>> model = new TreeMap<>();
        Map<String, Map<String, TreeMap<byte[], byte[]>>> names = new TreeMap<>();
        Store store = Store.open(file, options(redo));
        try {
            for (int step = 0; step < 120; step++) {
                int op = random.nextInt(100);
                String name = "n" + random.nextInt(5);
                if (op < 60) {
                    write(store, model, random, 1, 20 + random.nextInt(200));
                } else if (op < 68) {
                    deleteSome(store, model, random);
                } else if (op < 78) {
                    if (!names.containsKey(name)) {
                        store.retain(name);
                        names.put(name, ModelHarness.deepCopy(model));
                    }
                } else if (op < 86) {
                    if (names.remove(name) != null) {
                        store.release(name);
                    }
                } else if (op < 94) {
                    store.compact();
                    assertNamesHold(store, names, model);
                } else {
                    store.close();
                    store = Store.open(file, options(redo));
                    assertNamesHold(store, names, model);
                }
            }
        } finally {
            store.close();
        }
        try (Store again = Store.open(file, options(redo))) {
            assertNamesHold(again, names, model);
        }
    }

    /** Commits {@code commits} times {@code entries} entries over the key space, some in overflow runs. */
    static void write(Store store, Map<String, TreeMap<byte[], byte[]>> model, Random random, int commits,
            int entries) {
        for (int commit = 0; commit < commits; commit++) {
            try (WriteTxn tx = store.beginWrite()) {
                for (int i = 0; i < entries; i++) {
                    String name = TREES[random.nextInt(TREES.length)];
                    byte[] key = new byte[1 + random.nextInt(24)];
                    random.nextBytes(key);
                    byte[] value = new byte[random.nextInt(25) == 0 ? 4096 + random.nextInt(8192) : random.nextInt(200)];
                    random.nextBytes(value);
                    tx.put(tx.createTreeIfAbsent(name), key, value);
                    model.computeIfAbsent(name, n -> ModelHarness.newMap()).put(key, value);
                }
                tx.commit();
            }
        }
    }

    /** Deletes a random range of one tree. */
    private static void deleteSome(Store store, Map<String, TreeMap<byte[], byte[]>> model, Random random) {
        String name = TREES[random.nextInt(TREES.length)];
        TreeMap<byte[], byte[]> m = model.get(name);
        if (m == null || m.size() < 2) {
            return;
        }
        byte[][] keys = m.keySet().toArray(new byte[0][]);
        int from = random.nextInt(keys.length - 1);
        int to = Math.min(keys.length - 1, from + 1 + random.nextInt(keys.length / 2 + 1));
        store.update(tx -> tx.deleteRange(store.tree(name), keys[from], keys[to]));
        m.subMap(keys[from], true, keys[to], false).clear();
    }

    /**
     * Every name reads its model, the newest reads {@code model}, each name's diff to the newest is
     * the models', and the store checks out.
     */
    static void assertNamesHold(Store store, Map<String, Map<String, TreeMap<byte[], byte[]>>> names,
            Map<String, TreeMap<byte[], byte[]>> model) {
        CheckReport report = store.check();
        assertTrue(report.ok(), report.problems().toString());
        assertEquals(names.keySet(), new TreeSet<>(store.namedRevisions().stream().map(NamedRevision::name).toList()));
        try (Snapshot newest = store.beginRead()) {
            assertHolds(store, newest, model);
            for (Map.Entry<String, Map<String, TreeMap<byte[], byte[]>>> e : names.entrySet()) {
                try (Snapshot named = store.beginRead(e.getKey())) {
                    assertHolds(store, named, e.getValue());
                    TreeSet<String> seen = new TreeSet<>();
                    named.diff(newest, new DiffVisitor() {
                        @Override
                        public void treeCreated(String tree) {
                            seen.add("created " + tree);
                        }

                        @Override
                        public void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue) {
                            seen.add(tree + " " + hex(key) + " " + hex(oldValue) + " -> " + hex(newValue));
                        }
                    });
                    assertEquals(expectedDiff(e.getValue(), model), seen, "diff from '" + e.getKey() + "' to the newest");
                }
            }
        }
    }

    private static TreeSet<String> expectedDiff(Map<String, TreeMap<byte[], byte[]>> from,
            Map<String, TreeMap<byte[], byte[]>> to) {
        TreeSet<String> out = new TreeSet<>();
        HexFormat hex = HexFormat.of();
        for (String tree : TREES) {
            TreeMap<byte[], byte[]> a = from.get(tree);
            TreeMap<byte[], byte[]> b = to.get(tree);
            if (a == null && b != null) {
                out.add("created " + tree);
            }
            TreeMap<byte[], byte[]> keys = ModelHarness.newMap();
            if (a != null) {
                keys.putAll(a);
            }
            if (b != null) {
                keys.putAll(b);
            }
            for (byte[] key : keys.keySet()) {
                byte[] old = a == null ? null : a.get(key);
                byte[] now = b == null ? null : b.get(key);
                if (!java.util.Arrays.equals(old, now)) {
                    out.add(tree + " " + hex.formatHex(key) + " " + (old == null ? "-" : hex.formatHex(old)) + " -> "
                            + (now == null ? "-" : hex.formatHex(now)));
                }
            }
        }
        return out;
    }

    private static String hex(DirectBuffer b) {
        if (b == null) {
            return "-";
        }
        byte[] bytes = new byte[b.capacity()];
        b.getBytes(0, bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static void assertHolds(Store store, ReadView view, Map<String, TreeMap<byte[], byte[]>> model) {
        for (String name : TREES) {
            TreeMap<byte[], byte[]> m = model.getOrDefault(name, ModelHarness.newMap());
            assertNull(CrashWorkload.difference(view, store.tree(name), m), "tree " + name + " of revision "
                    + (view instanceof Snapshot s ? s.revision() : -1));
        }
    }
}
