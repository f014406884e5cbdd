// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * Every codec round-trips, and the unsigned order of its encodings is the order of its values,
 * over random values and the edges (extremes, zero, NUL bytes, characters outside the BMP).
 */
class CodecsTest {
    private static final int N = 3000;

    @Test
    void longsAndInts() {
        Random r = new Random(1);
        check(Codecs.LONG, Long::compare, List.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE),
                () -> r.nextInt(4) == 0 ? (long) r.nextInt(5) - 2 : r.nextLong());
        check(Codecs.INT, Integer::compare, List.of(Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE), r::nextInt);
    }

    @Test
    void stringsInCodePointOrder() {
        Random r = new Random(2);
        check(Codecs.STRING, CodecsTest::byCodePoint, List.of("", "\0", "\0\0", "a", "a\0", "\uFFFF", "\uD83D\uDE00",
                "\uE000"), () -> randomString(r));
        assertThrows(IllegalArgumentException.class, () -> Codecs.STRING.encode("bad\uD800"));
    }

    @Test
    void bytesUuidsAndInstants() {
        Random r = new Random(3);
        check(Codecs.BYTES, Arrays::compareUnsigned, List.of(new byte[0], new byte[] {0}, new byte[] {(byte) 0xFF}),
                () -> randomBytes(r));
        Comparator<UUID> text = Comparator.comparing(u -> u.toString());
        check(Codecs.UUID, text, List.of(new UUID(0, 0), new UUID(-1, -1), new UUID(Long.MIN_VALUE, 0),
                new UUID(Long.MAX_VALUE, Long.MIN_VALUE)), () -> new UUID(r.nextLong(), r.nextLong()));
        check(Codecs.INSTANT, Instant::compareTo, List.of(Instant.MIN, Instant.MAX, Instant.EPOCH,
                Instant.ofEpochSecond(-1, 999_999_999)),
                () -> Instant.ofEpochSecond(r.nextInt() * 1000L + r.nextInt(1000), r.nextInt(1_000_000_000)));
    }

    @Test
    void pairsOrderByTheFirstThenTheSecond() {
        Random r = new Random(4);
        Comparator<Pair<String, Long>> byBoth = Comparator.comparing((Pair<String, Long> p) -> p.first(),
                CodecsTest::byCodePoint).thenComparing(Pair::second);
        check(Codecs.pair(Codecs.STRING, Codecs.LONG), byBoth, List.of(new Pair<>("", 0L), new Pair<>("\0", -1L),
                new Pair<>("a", Long.MIN_VALUE), new Pair<>("a\0b", 3L)),
                () -> new Pair<>(randomString(r), (long) r.nextInt(7) - 3));
        Comparator<Pair<Long, byte[]>> fixedFirst = Comparator.comparing((Pair<Long, byte[]> p) -> p.first())
                .thenComparing(Pair::second, Arrays::compareUnsigned);
        check(Codecs.pair(Codecs.LONG, Codecs.BYTES), fixedFirst, List.of(new Pair<>(0L, new byte[0])),
                () -> new Pair<>((long) r.nextInt(5), randomBytes(r)));
        assertEquals(12, Codecs.pair(Codecs.LONG, Codecs.INT).fixedLength());
    }

    @Test
    void aTypedTreeReadsWritesAndRangesInItsTypes() {
        Random r = new Random(5);
        TreeMap<Long, String> model = new TreeMap<>();
        try (Store store = Store.inMemory()) {
            TypedTree<Long, String> t = TypedTree.of(store.tree("t"), Codecs.LONG, Codecs.STRING);
            try (WriteTxn tx = store.beginWrite()) {
                tx.createTree("t");
                for (int i = 0; i < 2000; i++) {
                    long k = r.nextInt(4000) - 2000;
                    String v = randomString(r);
                    assertEquals(!model.containsKey(k), t.put(tx, k, v));
                    model.put(k, v);
                }
                assertEquals(model.containsKey(7L), t.delete(tx, 7L));
                model.remove(7L);
                assertEquals(model.subMap(-100L, 100L).size(), t.deleteRange(tx, -100L, 100L));
                model.subMap(-100L, 100L).clear();
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(model.size(), t.count(s));
                for (long k = -2100; k < 2100; k += 7) {
                    assertEquals(model.get(k), t.get(s, k));
                    assertEquals(model.containsKey(k), t.contains(s, k));
                }
                assertNull(t.get(s, 50L));
                assertEquals(new ArrayList<>(model.entrySet()), list(t.range(s, null, null)));
                assertEquals(new ArrayList<>(model.subMap(-1500L, 1500L).entrySet()), list(t.range(s, -1500L, 1500L)));
                assertEquals(new ArrayList<>(model.headMap(-1000L).entrySet()), list(t.range(s, null, -1000L)));
                assertFalse(t.range(s, 5000L, null).iterator().hasNext());
            }
        }
    }

    private static <K, V> List<Map.Entry<K, V>> list(Iterable<Map.Entry<K, V>> entries) {
        List<Map.Entry<K, V>> out = new ArrayList<>();
        entries.forEach(out::add);
        return out;
    }

    /** Round trips, and sorting by encodings sorts as {@code order} does. */
    private static <T> void check(Codec<T> codec, Comparator<T> order, List<T> edges, java.util.function.Supplier<T> random) {
        List<T> values = new ArrayList<>(edges);
        for (int i = 0; i < N; i++) {
            values.add(random.get());
        }
        Function<T, byte[]> encode = codec::encode;
        for (T v : values) {
            byte[] e = encode.apply(v);
            if (codec.fixedLength() >= 0) {
                assertEquals(codec.fixedLength(), e.length);
            }
            T back = codec.decode(new UnsafeBuffer(e), 0, e.length);
            if (v instanceof byte[] b) {
                assertArrayEquals(b, (byte[]) back);
            } else if (v instanceof Pair<?, ?> p && p.second() instanceof byte[] b) {
                assertEquals(p.first(), ((Pair<?, ?>) back).first());
                assertArrayEquals(b, (byte[]) ((Pair<?, ?>) back).second());
            } else {
                assertEquals(v, back);
            }
        }
        for (int i = 0; i < values.size(); i++) {
            T a = values.get(i);
            T b = values.get((i * 7919 + 13) % values.size());
            int expected = Integer.signum(order.compare(a, b));
            int actual = Integer.signum(Arrays.compareUnsigned(encode.apply(a), encode.apply(b)));
            assertEquals(expected, actual, "order of " + a + " and " + b);
        }
        // An offset into a larger buffer, as page memory is.
        T v = values.get(values.size() - 1);
        byte[] e = codec.encode(v);
        byte[] padded = new byte[e.length + 5];
        System.arraycopy(e, 0, padded, 3, e.length);
        T back = codec.decode(new UnsafeBuffer(padded), 3, e.length);
        assertTrue(v instanceof byte[] || v instanceof Pair<?, ?> || v.equals(back), v + " at an offset: " + back);
    }

    private static int byCodePoint(String a, String b) {
        return Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
    }

    private static String randomString(Random r) {
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(6);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(5)) {
                case 0 -> s.append('\0');
                case 1 -> s.appendCodePoint(0x10000 + r.nextInt(0x1000));
                case 2 -> s.append((char) (0xE000 + r.nextInt(0x1000)));
                default -> s.append((char) ('a' + r.nextInt(3)));
            }
        }
        return s.toString();
    }

    private static byte[] randomBytes(Random r) {
        byte[] b = new byte[r.nextInt(4)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (r.nextBoolean() ? 0 : r.nextInt(256));
        }
        return b;
    }
}
