// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

/**
 * The map view of a tree against {@link TreeMap}: random trees, then random chains of sub-, head-,
 * tail- and descending maps, each asked every navigation and read a {@code NavigableMap} has,
 * including the sub-map bounds TreeMap refuses.
 */
class TreeMapViewTest {
    @Test
    void theViewAnswersAsATreeMapDoes() {
        Random r = new Random(11);
        for (int trial = 0; trial < 30; trial++) {
            TreeMap<Long, String> model = new TreeMap<>();
            try (Store store = Store.inMemory()) {
                TypedTree<Long, String> t = TypedTree.of(store.tree("t"), Codecs.LONG, Codecs.STRING);
                try (WriteTxn tx = store.beginWrite()) {
                    tx.createTree("t");
                    int n = r.nextInt(4) == 0 ? r.nextInt(5) : r.nextInt(3000);
                    for (int i = 0; i < n; i++) {
                        long k = r.nextInt(2000) - 1000;
                        model.put(k, "v" + k);
                        t.put(tx, k, "v" + k);
                    }
                    tx.commit();
                }
                try (Snapshot s = store.beginRead()) {
                    for (int chain = 0; chain < 20; chain++) {
                        NavigableMap<Long, String> expected = model;
                        NavigableMap<Long, String> actual = t.asMap(s);
                        same(expected, actual, r);
                        for (int depth = 0; depth < 3; depth++) {
                            Function<NavigableMap<Long, String>, NavigableMap<Long, String>> narrow = narrowing(r);
                            NavigableMap<Long, String> e;
                            try {
                                e = narrow.apply(expected);
                            } catch (IllegalArgumentException refused) {
                                NavigableMap<Long, String> a = actual;
                                assertThrows(IllegalArgumentException.class, () -> narrow.apply(a));
                                break;
                            }
                            expected = e;
                            actual = narrow.apply(actual);
                            same(expected, actual, r);
                        }
                    }
                    assertThrows(UnsupportedOperationException.class, () -> t.asMap(s).put(1L, "x"));
                    assertThrows(UnsupportedOperationException.class, () -> t.asMap(s).pollFirstEntry());
                }
            }
        }
    }

    private static Function<NavigableMap<Long, String>, NavigableMap<Long, String>> narrowing(Random r) {
        long a = r.nextInt(2400) - 1200;
        long b = a + r.nextInt(800);
        boolean ai = r.nextBoolean();
        boolean bi = r.nextBoolean();
        return switch (r.nextInt(4)) {
            case 0 -> m -> m.descendingMap();
            case 1 -> m -> m.headMap(a, ai);
            case 2 -> m -> m.tailMap(a, ai);
            default -> m -> m.comparator() != null && m.comparator().compare(a, b) > 0 ? m.subMap(b, bi, a, ai)
                    : m.subMap(a, ai, b, bi);
        };
    }

    private static void same(NavigableMap<Long, String> expected, NavigableMap<Long, String> actual, Random r) {
        assertEquals(expected.size(), actual.size());
        assertEquals(expected.isEmpty(), actual.isEmpty());
        assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(actual.entrySet()));
        assertEquals(new ArrayList<>(expected.descendingKeySet()), new ArrayList<>(actual.descendingKeySet()));
        assertEquals(expected, actual);
        assertEquals(expected.firstEntry(), actual.firstEntry());
        assertEquals(expected.lastEntry(), actual.lastEntry());
        if (!expected.isEmpty()) {
            assertEquals(expected.firstKey(), actual.firstKey());
            assertEquals(expected.lastKey(), actual.lastKey());
        }
        for (int i = 0; i < 40; i++) {
            long k = r.nextInt(2600) - 1300;
            assertEquals(expected.get(k), actual.get(k), "get " + k);
            assertEquals(expected.containsKey(k), actual.containsKey(k));
            assertEquals(expected.ceilingEntry(k), actual.ceilingEntry(k), "ceiling " + k);
            assertEquals(expected.floorEntry(k), actual.floorEntry(k), "floor " + k);
            assertEquals(expected.higherEntry(k), actual.higherEntry(k), "higher " + k);
            assertEquals(expected.lowerEntry(k), actual.lowerEntry(k), "lower " + k);
            assertEquals(expected.navigableKeySet().ceiling(k), actual.navigableKeySet().ceiling(k));
        }
        List<Long> streamed = actual.keySet().stream().toList();
        assertEquals(new ArrayList<>(expected.keySet()), streamed);
        assertEquals(expected.values().stream().toList(), actual.values().stream().toList());
        assertEquals(expected.entrySet().stream().map(Map.Entry::getKey).toList(),
                actual.entrySet().stream().map(Map.Entry::getKey).toList());
    }
}
