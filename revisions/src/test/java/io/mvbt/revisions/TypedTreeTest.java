// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/**
 * The typed reads and writes of {@link TypedTree} against {@link TreeMap}: counts, ranks, ranges in
 * both directions, cursors and range deletes, with null bounds open, on snapshots and in write
 * transactions; null keys and values refused by name.
 */
class TypedTreeTest {
    private static final long SPAN = 400;

    @Test
    void typedReadsAnswerAsATreeMapDoes() {
        Random r = new Random(4801);
        for (int trial = 0; trial < 25; trial++) {
            TreeMap<Long, String> model = new TreeMap<>();
            try (Store store = Store.inMemory()) {
                TypedTree<Long, String> t = TypedTree.of(store.tree("t"), Codecs.LONG, Codecs.STRING);
                int n = r.nextInt(4) == 0 ? r.nextInt(4) : r.nextInt(2000);
                store.update(tx -> {
                    tx.createTree("t");
                    for (int i = 0; i < n; i++) {
                        long k = r.nextLong(SPAN) - SPAN / 2;
                        model.put(k, "v" + k);
                        t.put(tx, k, "v" + k);
                    }
                });
                try (Snapshot s = store.beginRead()) {
                    sameReads(model, t, s, r);
                }
                // A transaction reads its own writes through the same methods.
                try (WriteTxn tx = store.beginWrite()) {
                    for (int i = 0; i < 50; i++) {
                        long k = r.nextLong(SPAN) - SPAN / 2;
                        if (r.nextBoolean()) {
                            model.put(k, "w" + k);
                            t.put(tx, k, "w" + k);
                        } else {
                            assertEquals(model.remove(k) != null, t.delete(tx, k));
                        }
                    }
                    sameReads(model, t, tx, r);
                }
            }
        }
    }

    /** A bound from the whole range of keys and beyond, or null (open) one time in five. */
    private static Long bound(Random r) {
        return r.nextInt(5) == 0 ? null : r.nextLong(SPAN + 40) - SPAN / 2 - 20;
    }

    /** The model's keys in [from, to), a null bound open. */
    private static NavigableMap<Long, String> within(TreeMap<Long, String> model, Long from, Long to) {
        if (from != null && to != null && from > to) {
            return new TreeMap<>();
        }
        NavigableMap<Long, String> m = model;
        if (from != null) {
            m = m.tailMap(from, true);
        }
        if (to != null) {
            m = m.headMap(to, false);
        }
        return m;
    }

    private static void sameReads(TreeMap<Long, String> model, TypedTree<Long, String> t, ReadView view, Random r) {
        assertEquals(model.size(), t.count(view));
        for (int i = 0; i < 60; i++) {
            Long from = bound(r);
            Long to = bound(r);
            String where = "[" + from + ", " + to + ")";
            NavigableMap<Long, String> expected = within(model, from, to);
            assertEquals(expected.size(), t.countRange(view, from, to), "countRange " + where);
            assertEquals(new ArrayList<>(expected.entrySet()), list(t.range(view, from, to)), "range " + where);
            assertEquals(new ArrayList<>(expected.descendingMap().entrySet()), list(t.rangeDescending(view, from, to)),
                    "rangeDescending " + where);
            long k = r.nextLong(SPAN + 40) - SPAN / 2 - 20;
            boolean inclusive = r.nextBoolean();
            assertEquals(model.headMap(k, inclusive).size(), t.rank(view, k, inclusive), "rank " + k);
            assertEquals(model.get(k), t.get(view, k));
            assertEquals(model.containsKey(k), t.contains(view, k));
            try (TypedCursor<Long, String> c = t.cursor(view)) {
                List<Long> up = new ArrayList<>();
                for (boolean on = c.seek(k); on && up.size() < 20; on = c.next()) {
                    assertEquals("" + c.key(), c.value().substring(1));
                    assertEquals(model.headMap(c.key(), false).size(), c.position());
                    up.add(c.key());
                }
                assertEquals(model.tailMap(k, true).keySet().stream().limit(20).toList(), up, "seek " + k);
                List<Long> down = new ArrayList<>();
                for (boolean on = c.seekFloor(k); on && down.size() < 20; on = c.prev()) {
                    down.add(c.key());
                }
                assertEquals(model.headMap(k, true).descendingKeySet().stream().limit(20).toList(), down, "floor " + k);
                assertEquals(model.isEmpty() ? null : model.lastKey(), c.last() ? c.key() : null);
                assertEquals(model.isEmpty() ? null : model.firstKey(), c.first() ? c.key() : null);
                int position = model.isEmpty() ? 0 : r.nextInt(model.size());
                if (c.seekPosition(position)) {
                    assertEquals(new ArrayList<>(model.keySet()).get(position), c.key());
                }
            }
        }
    }

    private static <K, V> List<Map.Entry<K, V>> list(Iterable<Map.Entry<K, V>> entries) {
        List<Map.Entry<K, V>> out = new ArrayList<>();
        entries.forEach(out::add);
        return out;
    }

    @Test
    void deleteRangeTakesNullAsAnOpenBound() {
        Random r = new Random(4802);
        for (int trial = 0; trial < 200; trial++) {
            TreeMap<Long, String> model = new TreeMap<>();
            try (Store store = Store.inMemory()) {
                TypedTree<Long, String> t = TypedTree.of(store.tree("t"), Codecs.LONG, Codecs.STRING);
                int n = r.nextInt(3) == 0 ? r.nextInt(3) : r.nextInt(1500);
                Long from = bound(r);
                Long to = bound(r);
                if (from != null && to != null && from > to) {
                    Long swap = from;
                    from = to;
                    to = swap;
                }
                Long low = from;
                Long high = to;
                store.update(tx -> {
                    tx.createTree("t");
                    for (int i = 0; i < n; i++) {
                        long k = r.nextLong(SPAN) - SPAN / 2;
                        model.put(k, "v");
                        t.put(tx, k, "v");
                    }
                });
                NavigableMap<Long, String> doomed = within(model, low, high);
                int expected = doomed.size();
                doomed.clear();
                long deleted = store.write(tx -> t.deleteRange(tx, low, high));
                assertEquals(expected, deleted, "[" + low + ", " + high + ")");
                store.read(s -> {
                    assertEquals(model, t.asMap(s));
                    return null;
                });
            }
        }
    }

    @Test
    void nullKeysAndValuesAreRefusedByName() {
        try (Store store = Store.inMemory()) {
            TypedTree<Long, String> t = TypedTree.of(store.tree("t"), Codecs.LONG, Codecs.STRING);
            store.update(tx -> {
                tx.createTree("t");
                assertNpe("key must not be null", () -> t.put(tx, null, "v"));
                assertNpe("value must not be null", () -> t.put(tx, 1L, null));
                assertNpe("key must not be null", () -> t.get(tx, null));
                assertNpe("key must not be null", () -> t.delete(tx, null));
                assertNpe("key must not be null", () -> t.rank(tx, null, true));
                assertNpe("key must not be null", () -> t.asMap(tx).put(null, "v"));
                assertNpe("value must not be null", () -> t.asMap(tx).put(1L, null));
                assertNpe("value must not be null", () -> t.asMap(tx).merge(1L, null, (a, b) -> a));
                assertNpe("key must not be null", () -> t.asMap(tx).get(null));
                assertNpe("key must not be null", () -> tx.put(t.tree(), null, new byte[0]));
                assertNpe("value must not be null", () -> tx.put(t.tree(), new byte[0], null));
                assertNpe("key must not be null", () -> tx.get(t.tree(), (byte[]) null));
                try (TypedCursor<Long, String> c = t.cursor(tx)) {
                    assertNpe("key must not be null", () -> c.seek(null));
                }
                // The transaction goes on: nothing was written.
                assertEquals(0, t.count(tx));
                assertEquals(0, t.deleteRange(tx, 0L, null));
            });
        }
    }

    private static void assertNpe(String message, Runnable call) {
        assertEquals(message, assertThrows(NullPointerException.class, call::run).getMessage());
    }

    /**
     * The documented behaviour: iterating a range in the transaction that writes it sees the
     * writes ahead of its position, so a loop that always puts a key ahead never ends by itself;
     * iterating a snapshot opened before does.
     */
    @Test
    void iteratingWhileWritingSeesTheTransactionsOwnInserts() {
        try (Store store = Store.inMemory()) {
            TypedTree<Long, String> t = TypedTree.of(store.tree("t"), Codecs.LONG, Codecs.STRING);
            store.update(tx -> {
                tx.createTree("t");
                t.put(tx, 0L, "seed");
            });
            int steps = store.write(tx -> {
                int n = 0;
                for (Map.Entry<Long, String> e : t.range(tx, 0L, null)) {
                    t.put(tx, e.getKey() + 1, "ahead");
                    if (++n == 1000) {
                        break;
                    }
                }
                return n;
            });
            assertEquals(1000, steps, "each step met the key the one before put");
            int mapSteps = store.write(tx -> {
                int n = 0;
                NavigableMap<Long, String> m = t.asMap(tx);
                for (Long k : m.descendingKeySet()) {
                    m.put(k - 1, "behind, which is ahead going down");
                    if (++n == 1000) {
                        break;
                    }
                }
                return n;
            });
            assertEquals(1000, mapSteps);
            // Read what the transaction started from instead: the loop ends.
            long before = store.read(s -> t.count(s));
            try (Snapshot s = store.beginRead(); WriteTxn tx = store.beginWrite()) {
                int n = 0;
                for (Map.Entry<Long, String> e : t.range(s, 0L, null)) {
                    t.put(tx, e.getKey() + before, "copied");
                    n++;
                }
                assertEquals(before, n);
                assertFalse(t.contains(s, before));
                tx.commit();
            }
            assertEquals(2 * before, (long) store.read(s -> t.count(s)));
        }
    }
}
