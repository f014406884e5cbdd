// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.btree.Node;
import io.mvbt.btree.TreeRoot;
import io.mvbt.btree.TreeWalker;

/**
 * Branch entries say when no value under a child is in overflow pages, so that freeing detached
 * subtrees need not read their leaves: the flag must be set where values are all inline (or the
 * saving is lost), and never where an overflow value lies below (or its pages would leak).
 */
class InlineOnlyTest {
    /** Larger than a third of a 4 KiB page: kept in overflow pages. */
    private static final int LARGE = 2000;

    @TempDir
    Path dir;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    @Test
    void treesOfInlineValuesHaveEveryChildMarked() {
        try (Store store = Store.open(dir.resolve("inline.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL))) {
            Tree random;
            Tree loaded;
            Random rnd = new Random(7);
            try (WriteTxn tx = store.beginWrite()) {
                random = tx.createTree("random");
                loaded = tx.createTree("loaded");
                try (BulkLoad load = tx.bulkLoad(loaded)) {
                    for (long i = 0; i < 50_000; i++) {
                        load.add(key(i), new byte[60]);
                    }
                }
                tx.commit();
            }
            for (int c = 0; c < 120; c++) {
                try (WriteTxn tx = store.beginWrite()) {
                    for (int j = 0; j < 500; j++) {
                        tx.put(random, key(rnd.nextInt(100_000)), new byte[1 + rnd.nextInt(200)]);
                        tx.delete(random, key(rnd.nextInt(100_000)));
                    }
                    long from = rnd.nextInt(50_000);
                    tx.deleteRange(loaded, key(from), key(from + rnd.nextInt(300)));
                    tx.commit();
                }
            }
            for (String name : new String[] {"random", "loaded"}) {
                long[] children = markedAndAll(store, name);
                assertTrue(children[1] > 100, name + ": only " + children[1] + " children");
                assertEquals(children[1], children[0], name + ": children marked inline-only");
            }
            store.check().throwIfDamaged();
        }
    }

    @Test
    void noChildWithAnOverflowValueBelowIsMarkedAndNoneLeaks() {
        try (Store store = Store.open(dir.resolve("mixed.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL))) {
            Random rnd = new Random(11);
            TreeMap<Long, Integer> model = new TreeMap<>();
            Tree t;
            long baseline = store.stats().pagesInUse();
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                // A bulk load into the empty tree grows it level by level.
                try (BulkLoad load = tx.bulkLoad(t)) {
                    for (long k = 0; k < 20_000; k += 4) {
                        int size = rnd.nextInt(100) == 0 ? LARGE : 40;
                        load.add(key(k), new byte[size]);
                        model.put(k, size);
                    }
                }
                tx.commit();
            }
            store.check().throwIfDamaged();
            for (int c = 0; c < 300; c++) {
                try (WriteTxn tx = store.beginWrite()) {
                    int kind = rnd.nextInt(10);
                    if (kind == 0) {
                        // A bulk load past the last key, with a few large values among small ones.
                        long next = model.isEmpty() ? 0 : model.lastKey() + 1;
                        try (BulkLoad load = tx.bulkLoad(t)) {
                            for (int j = 0; j < 400; j++) {
                                int size = rnd.nextInt(50) == 0 ? LARGE : 40;
                                load.add(key(next + j), new byte[size]);
                                model.put(next + j, size);
                            }
                        }
                    } else if (kind == 1 && !model.isEmpty()) {
                        long from = rnd.nextLong(model.lastKey() + 1);
                        long to = from + rnd.nextInt(2_000);
                        assertEquals(model.subMap(from, to).size(), tx.deleteRange(t, key(from), key(to)));
                        model.subMap(from, to).clear();
                    } else {
                        // Phases that grow the tree and phases that shrink it, which merge pages.
                        int deleteOneIn = c / 20 % 2 == 0 ? 4 : 2;
                        for (int j = 0; j < 200; j++) {
                            long k = rnd.nextInt(20_000);
                            if (rnd.nextInt(deleteOneIn) == 0) {
                                tx.delete(t, key(k));
                                model.remove(k);
                            } else {
                                // Now and then a value moves between inline and overflow pages.
                                int size = rnd.nextInt(12) == 0 ? LARGE : 1 + rnd.nextInt(120);
                                tx.put(t, key(k), new byte[size]);
                                model.put(k, size);
                            }
                        }
                    }
                    tx.commit();
                }
                if (c % 5 == 4) {
                    // The checker fails on a marked child with an overflow value below, and on leaked pages.
                    store.check().throwIfDamaged();
                }
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(model.size(), s.count(t));
            }
            try (WriteTxn tx = store.beginWrite()) {
                assertEquals(model.size(), tx.deleteRange(t, key(0), key(Long.MAX_VALUE)));
                tx.commit();
            }
            // Later commits free the detached subtrees, overflow values and all.
            for (int c = 0; c < 200; c++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(t, key(1), new byte[1]);
                    tx.commit();
                }
            }
            store.check().throwIfDamaged();
            assertTrue(store.stats().pagesInUse() <= baseline + 8, store.stats().pagesInUse() + " pages in use, "
                    + baseline + " before");
        }
    }

    @Test
    void theCheckFindsAChildMarkedOverAnOverflowValue() {
        try (Store store = Store.inMemory()) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                for (long i = 0; i < 2_000; i++) {
                    tx.put(t, key(i), new byte[i == 1_500 ? LARGE : 40]);
                }
                tx.commit();
            }
            store.check().throwIfDamaged();
            // Pages of a store in memory carry no checksum: mark every child, as a bug might.
            long[] marked = {0};
            try (Snapshot s = store.beginRead()) {
                TreeWalker.walk(store.access(), rootOf(store, s, "t"), -1, new TreeWalker.Visitor() {
                    @Override
                    public void node(long pageNo, long revision, long address, int level) {
                        for (int i = 0; level > 0 && i < Node.count(address); i++) {
                            marked[0] += Node.inlineOnly(address, i) ? 0 : 1;
                            Node.setInlineOnly(address, i, true);
                        }
                    }

                    @Override
                    public void overflow(long pageNo, long revision, long address) {
                    }
                });
            }
            assertTrue(marked[0] > 0, "no child was unmarked above the overflow value");
            CheckReport report = store.check();
            assertTrue(report.problems().stream().anyMatch(p -> p.contains("holds no overflow value, but it holds one")),
                    report.problems().toString());
        }
    }

    private static TreeRoot rootOf(Store store, Snapshot s, String name) {
        for (Catalog.Entry e : Catalog.list(store.access(), s.rev().catalog, s.rev().fresh, false)) {
            if (e.name.equals(name)) {
                return e.root;
            }
        }
        throw new AssertionError("no tree " + name);
    }

    /** The children of branch pages of a tree: how many are marked inline-only, and how many in all. */
    private static long[] markedAndAll(Store store, String name) {
        long[] counts = new long[2];
        try (Snapshot s = store.beginRead()) {
            TreeWalker.walk(store.access(), rootOf(store, s, name), -1, new TreeWalker.Visitor() {
                @Override
                public void node(long pageNo, long revision, long address, int level) {
                    for (int i = 0; level > 0 && i < Node.count(address); i++) {
                        counts[0] += Node.inlineOnly(address, i) ? 1 : 0;
                        counts[1]++;
                    }
                }

                @Override
                public void overflow(long pageNo, long revision, long address) {
                }
            });
        }
        return counts;
    }
}
