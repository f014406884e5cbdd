// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/** Random bounded ranges, both directions, against TreeMap's sub-maps. */
class RangeTest {
    private final TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);

    @Test
    void rangesMatchTheModel() {
        Random random = new Random(7);
        try (Store store = Store.inMemory()) {
            Tree tree;
            try (WriteTxn tx = store.beginWrite()) {
                tree = tx.createTree("t");
                for (int i = 0; i < 3000; i++) {
                    byte[] k = key(random.nextInt(6000));
                    byte[] v = ("v" + i).getBytes();
                    tx.put(tree, k, v);
                    model.put(k, v);
                }
                // Ranges in the transaction see its own writes.
                check(tx, tree, random, 200);
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                check(s, tree, random, 500);
            }
        }
    }

    private void check(ReadView view, Tree tree, Random random, int ranges) {
        for (int r = 0; r < ranges; r++) {
            byte[] a = key(random.nextInt(6200) - 100);
            byte[] b = key(random.nextInt(6200) - 100);
            if (Arrays.compareUnsigned(a, b) > 0) {
                byte[] t = a;
                a = b;
                b = t;
            }
            boolean lowerInclusive = random.nextBoolean();
            boolean upperInclusive = random.nextBoolean();
            boolean reverse = random.nextBoolean();
            int bounds = random.nextInt(4);
            Range range = Range.over(view, tree);
            NavigableMap<byte[], byte[]> expected = model;
            if ((bounds & 1) != 0) {
                range = lowerInclusive ? range.from(a) : range.fromExclusive(a);
                expected = expected.tailMap(a, lowerInclusive);
            }
            if ((bounds & 2) != 0) {
                range = upperInclusive ? range.to(b) : range.toExclusive(b);
                expected = expected.headMap(b, upperInclusive);
            }
            if (reverse) {
                range = range.reverse();
                expected = expected.descendingMap();
            }
            List<KeyValue> actual = new ArrayList<>();
            for (KeyValue kv : range) {
                actual.add(kv);
            }
            List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(expected.entrySet());
            assertEquals(want.size(), actual.size(), "range " + r);
            for (int i = 0; i < want.size(); i++) {
                assertArrayEquals(want.get(i).getKey(), actual.get(i).key());
                assertArrayEquals(want.get(i).getValue(), actual.get(i).value());
            }
            try (var stream = range.stream()) {
                assertEquals(actual, stream.limit(want.size() + 1).collect(Collectors.toList()));
            }
            assertEquals(want.size(), range.count(), "count of range " + r);
            long offset = want.isEmpty() ? 0 : random.nextInt(want.size() + 2);
            int limit = random.nextInt(60);
            List<KeyValue> page = range.page(offset, limit);
            assertEquals(Math.max(0, Math.min(limit, want.size() - offset)), page.size(), "page of range " + r);
            for (int i = 0; i < page.size(); i++) {
                assertArrayEquals(want.get((int) offset + i).getKey(), page.get(i).key(), "paged key " + i);
            }
            try (RangeCursor c = range.cursor()) {
                int n = 0;
                while (c.next()) {
                    assertArrayEquals(want.get(n++).getKey(), c.keyBytes());
                }
                assertEquals(want.size(), n);
                assertFalse(c.next(), "an exhausted cursor stays exhausted");
            }
        }
    }

    /** A null bound is open, as documented; the cursor's key is the range's only while next() says so. */
    @Test
    void nullBoundsAreOpenAndACursorPastItsRangeHasNoEntry() {
        try (Store store = Store.inMemory()) {
            Tree tree;
            try (WriteTxn tx = store.beginWrite()) {
                tree = tx.createTree("t");
                for (int i = 0; i < 10; i++) {
                    tx.put(tree, key(i), new byte[] {(byte) i});
                }
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(10, Range.over(s, tree).from(null).to(null).stream().count());
                assertEquals(7, Range.over(s, tree).fromExclusive(key(2)).toExclusive(null).stream().count());
                try (RangeCursor c = Range.over(s, tree).toExclusive(key(3)).cursor()) {
                    assertThrows(IllegalStateException.class, c::key);
                    for (int i = 0; i < 3; i++) {
                        assertTrue(c.next());
                        assertArrayEquals(key(i), c.keyBytes());
                    }
                    assertFalse(c.next());
                    // The cursor underneath stands on key 3, past the range: not an entry of it.
                    assertThrows(IllegalStateException.class, c::key);
                    assertThrows(IllegalStateException.class, c::value);
                }
            }
        }
    }

    private static byte[] key(int n) {
        return n < 0 ? new byte[] {(byte) -n} : String.format("%06d", n).getBytes();
    }
}
