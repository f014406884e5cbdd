// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.mvbt.testkit.Profile;

/**
 * The pages a diff reads follow the change, whatever shape it gives the tree: rounds of random
 * changes to a tree of 100,000 entries (new keys between old ones, deletes, new values, runs of
 * deletes that merge leaves, runs of inserts that split them, small range deletes), each diffed
 * exactly against the model, and its pages held to a few paths per changed key.
 */
class DiffCostTest {
    private static final int ENTRIES = 100_000;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    @Test
    void everyRoundReadsAFewPathsPerChangedKey() {
        int rounds = Profile.size("mvbt.diff.rounds", 12, 200);
        long seed = Long.getLong("mvbt.seed", 4949);
        Random r = new Random(seed);
        TreeMap<byte[], byte[]> model = ModelHarness.newMap();
        try (Store store = Store.inMemory()) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                try (BulkLoad load = tx.bulkLoad(t)) {
                    for (long i = 0; i < ENTRIES; i++) {
                        byte[] v = new byte[1 + r.nextInt(40)];
                        load.add(key(i * 16), v);
                        model.put(key(i * 16), v);
                    }
                }
                tx.commit();
            }
            for (int round = 0; round < rounds; round++) {
                TreeMap<byte[], byte[]> before = ModelHarness.newMap();
                before.putAll(model);
                try (Snapshot a = store.beginRead()) {
                    try (WriteTxn tx = store.beginWrite()) {
                        int shapes = 1 + r.nextInt(6);
                        for (int s = 0; s < shapes; s++) {
                            change(tx, t, model, r);
                        }
                        tx.commit();
                    }
                    try (Snapshot b = store.beginRead()) {
                        List<Object> expected = DiffModel.expected(Map.of("t", before), Map.of("t", model));
                        List<Object> actual = new ArrayList<>();
                        DiffStats stats = a.diff(b, t, (name, k, o, n) -> actual.add(new Change(name, DiffTest.copy(k),
                                DiffTest.copy(o), DiffTest.copy(n))));
                        assertTrue(expected.equals(actual), "seed " + seed + " round " + round + ": the diff differs"
                                + " from the model's (" + actual.size() + " against " + expected.size() + ")");
                        int depth = Math.max(a.treeStats(t).depth(), b.treeStats(t).depth());
                        long bound = (long) expected.size() * depth * 4 + 8;
                        assertTrue(stats.pagesRead() <= bound, "seed " + seed + " round " + round + ": "
                                + expected.size() + " changes at depth " + depth + " read " + stats.pagesRead()
                                + " pages, bound " + bound + "; " + stats);
                    }
                }
            }
        }
    }

    /** One random kind of change, in the transaction and in the model. */
    private static void change(WriteTxn tx, Tree t, TreeMap<byte[], byte[]> model, Random r) {
        long at = r.nextInt(ENTRIES) * 16L;
        switch (r.nextInt(6)) {
            case 0 -> {
                byte[] v = new byte[r.nextInt(30)];
                r.nextBytes(v);
                // A new key between two old ones.
                put(tx, t, model, key(at + 1 + r.nextInt(15)), v);
            }
            case 1 -> {
                tx.delete(t, key(at));
                model.remove(key(at));
            }
            case 2 -> {
                byte[] v = new byte[1 + r.nextInt(60)];
                r.nextBytes(v);
                put(tx, t, model, key(at), v);
            }
            case 3 -> {
                // A run of deletes: leaves empty out and merge with neighbours.
                Iterator<byte[]> it = model.tailMap(key(at), true).keySet().iterator();
                for (int i = 0, n = 20 + r.nextInt(200); i < n && it.hasNext(); i++) {
                    tx.delete(t, it.next());
                    it.remove();
                }
            }
            case 4 -> {
                // A run of inserts into one gap: its leaf splits, maybe its parent too.
                for (int i = 1, n = 5 + r.nextInt(15); i <= n; i++) {
                    byte[] v = new byte[40];
                    r.nextBytes(v);
                    put(tx, t, model, key(at + i), v);
                }
            }
            default -> {
                long to = at + 16L * (1 + r.nextInt(400));
                tx.deleteRange(t, key(at), key(to));
                model.subMap(key(at), true, key(to), false).clear();
            }
        }
    }

    private static void put(WriteTxn tx, Tree t, TreeMap<byte[], byte[]> model, byte[] k, byte[] v) {
        tx.put(t, k, v);
        model.put(k, v);
    }
}
