// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import io.mvbt.testkit.Shrink;

/**
 * The writable map of a tree ({@link TypedTree#asMap(WriteTxn)}) against {@link TreeMap}: seeded
 * chains of operations, each through a view of views (sub-, head-, tail- and descending maps of one
 * another) of the whole map, with commits and aborts between them. Every operation's result or
 * exception must be the model's, and the whole map must equal the model after each. A failure prints
 * its seed and the shrunk list of operations.
 */
class TypedMapTest {
    private static final int KEYS = 200;

    enum Kind {
        PUT, REMOVE, PUT_IF_ABSENT, REPLACE, REPLACE_IF, REMOVE_IF, GET_OR_DEFAULT, COMPUTE_IF_ABSENT, COMPUTE_IF_PRESENT,
        COMPUTE, MERGE, POLL_FIRST, POLL_LAST, CLEAR, ITERATOR_REMOVE, KEY_SET_REMOVE, REPLACE_ALL, SET_VALUE,
        KEY_SET_POLL_FIRST, COMMIT, ABORT, READ
    }

    /**
     * One operation with its random choices: the view it goes through is narrowed by {@code views}
     * (up to three, each a narrowing chosen from a long's bits), and it takes {@code key},
     * {@code other} and {@code pick}.
     */
    record Op(Kind kind, long[] views, long key, long other, int pick) {
        @Override
        public String toString() {
            return kind + "(views=" + java.util.Arrays.toString(views) + ", key=" + key + ", other=" + other + ", pick="
                    + pick + ")";
        }
    }

    @Test
    void theWritableMapChangesAsATreeMapDoes() {
        // -Dmvbt.mapSeed=N replays the seed a failure printed.
        Long replay = Long.getLong("mvbt.mapSeed");
        for (int trial = 0; trial < (replay == null ? 200 : 1); trial++) {
            long seed = replay == null ? 48_000 + trial : replay;
            List<Op> ops = generate(new Random(seed));
            String failure = run(ops);
            if (failure != null) {
                List<Op> shrunk = Shrink.failing(ops, candidate -> run(candidate) != null);
                fail("seed " + seed + ": " + failure + "\nshrunk to " + shrunk.size() + " operations:\n"
                        + String.join("\n", shrunk.stream().map(Op::toString).toList()) + "\nwhich fail with: "
                        + run(shrunk));
            }
        }
    }

    /**
     * Every bounded view of a small tree, cleared: sub-, head- and tail-maps with every pair of
     * bounds around, on and between its keys, inclusive or not, in both directions.
     */
    @Test
    void clearingAViewDeletesExactlyItsKeys() {
        TreeMap<Long, String> full = new TreeMap<>();
        for (long k = 0; k <= 8; k += 2) {
            full.put(k, "v" + k);
        }
        try (Store store = Store.inMemory()) {
            TypedTree<Long, String> t = TypedTree.of(store.tree("t"), Codecs.LONG, Codecs.STRING);
            store.update(tx -> {
                tx.createTree("t");
                t.asMap(tx).putAll(full);
            });
            for (long a = -1; a <= 9; a++) {
                for (long b = a; b <= 9; b++) {
                    for (int flags = 0; flags < 8; flags++) {
                        boolean ai = (flags & 1) != 0;
                        boolean bi = (flags & 2) != 0;
                        boolean down = (flags & 4) != 0;
                        long lo = a;
                        long hi = b;
                        List<java.util.function.Function<NavigableMap<Long, String>, NavigableMap<Long, String>>> views =
                                List.of(m -> m.subMap(lo, ai, hi, bi), m -> m.headMap(hi, bi), m -> m.tailMap(lo, ai));
                        for (var view : views) {
                            TreeMap<Long, String> model = new TreeMap<>(full);
                            NavigableMap<Long, String> expected = view.apply(model);
                            try (WriteTxn tx = store.beginWrite()) {
                                NavigableMap<Long, String> whole = t.asMap(tx);
                                NavigableMap<Long, String> actual = view.apply(whole);
                                (down ? actual.descendingMap() : actual).clear();
                                (down ? expected.descendingMap() : expected).clear();
                                assertEquals(model, whole, "[" + lo + " " + ai + ", " + hi + " " + bi + "]");
                                assertEquals(0, actual.size());
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void theSuccessorOfAKeyIsTheSmallestAboveIt() {
        int max = 4;
        assertArrayEquals(new byte[] {1, 0}, TreeMapView.successor(new byte[] {1}, max));
        assertArrayEquals(new byte[] {0}, TreeMapView.successor(new byte[0], max));
        assertArrayEquals(new byte[] {1, 2, 3, 5}, TreeMapView.successor(new byte[] {1, 2, 3, 4}, max));
        assertArrayEquals(new byte[] {1, 3}, TreeMapView.successor(new byte[] {1, 2, (byte) 0xff, (byte) 0xff}, max));
        assertNull(TreeMapView.successor(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}, max));
    }

    /** A tail map open below the longest key there can be: clear() must step past it without a longer key. */
    @Test
    void clearingAboveAKeyOfTheLongestLengthKeepsIt() {
        try (Store store = Store.inMemory()) {
            int max = store.maxKeySize();
            byte[] longest = new byte[max];
            java.util.Arrays.fill(longest, (byte) 0x7f);
            byte[] above = java.util.Arrays.copyOf(longest, max);
            above[max - 1] = (byte) 0x80;
            TypedTree<byte[], String> t = TypedTree.of(store.tree("b"), Codecs.BYTES, Codecs.STRING);
            store.update(tx -> {
                tx.createTree("b");
                t.put(tx, longest, "kept");
                t.put(tx, above, "deleted");
                t.put(tx, new byte[] {(byte) 0xff}, "deleted too");
                t.asMap(tx).tailMap(longest, false).clear();
                assertEquals(1, t.count(tx));
                assertEquals("kept", t.get(tx, longest));
                t.asMap(tx).tailMap(longest, true).clear();
                assertEquals(0, t.count(tx));
            });
        }
    }

    private static List<Op> generate(Random r) {
        List<Op> ops = new ArrayList<>();
        int n = 50 + r.nextInt(400);
        Kind[] kinds = Kind.values();
        for (int i = 0; i < n; i++) {
            // Puts come as often as everything else together, so trees grow between the removals.
            Kind kind = r.nextBoolean() ? Kind.PUT : kinds[r.nextInt(kinds.length)];
            long[] views = new long[r.nextInt(4)];
            for (int v = 0; v < views.length; v++) {
                views[v] = r.nextLong();
            }
            ops.add(new Op(kind, views, key(r), key(r), r.nextInt(1 << 20)));
        }
        return ops;
    }

    /** Keys a little beyond those stored, so that bounds and lookups also fall outside them. */
    private static long key(Random r) {
        return r.nextInt(KEYS + 40) - KEYS / 2 - 20;
    }

    /** Runs {@code ops} against a store and a model; returns the first difference, or null. */
    static String run(List<Op> ops) {
        TreeMap<Long, String> committed = new TreeMap<>();
        TreeMap<Long, String> model = new TreeMap<>();
        try (Store store = Store.inMemory()) {
            TypedTree<Long, String> t = TypedTree.of(store.tree("t"), Codecs.LONG, Codecs.STRING);
            store.update(created -> created.createTree("t"));
            WriteTxn tx = store.beginWrite();
            try {
                for (int i = 0; i < ops.size(); i++) {
                    Op op = ops.get(i);
                    switch (op.kind) {
                        case COMMIT -> {
                            tx.commit();
                            committed = new TreeMap<>(model);
                            tx = store.beginWrite();
                        }
                        case ABORT -> {
                            tx.abort();
                            model = new TreeMap<>(committed);
                            tx = store.beginWrite();
                        }
                        case READ -> {
                            // A snapshot holds what was committed, whatever the open transaction did since.
                            try (Snapshot s = store.beginRead()) {
                                if (!committed.equals(t.asMap(s))) {
                                    return "op " + i + " " + op + ": the snapshot differs from the committed model";
                                }
                            }
                        }
                        default -> {
                            String difference = apply(op, model, t.asMap(tx));
                            if (difference != null) {
                                return "op " + i + " " + op + ": " + difference;
                            }
                        }
                    }
                    NavigableMap<Long, String> whole = t.asMap(tx);
                    if (!model.equals(whole) || model.size() != whole.size()
                            || !new ArrayList<>(model.entrySet()).equals(new ArrayList<>(whole.entrySet()))) {
                        return "op " + i + " " + op + ": the map holds " + whole + ", the model " + model;
                    }
                }
            } finally {
                tx.close();
            }
        } catch (RuntimeException | AssertionError e) {
            return "threw " + e;
        }
        return null;
    }

    /** Applies {@code op} to the model and the map through the same views; the difference in outcome, or null. */
    private static String apply(Op op, NavigableMap<Long, String> model, NavigableMap<Long, String> map) {
        NavigableMap<Long, String> expected = model;
        NavigableMap<Long, String> actual = map;
        for (long view : op.views) {
            Object e = outcome(narrowed(expected, view));
            Object a = outcome(narrowed(actual, view));
            if (!Objects.equals(e, a)) {
                return "narrowing " + view + " gave " + a + ", the model " + e;
            }
            if (e instanceof Class<?>) {
                // Both refused the narrowing: the operation has no view to go through.
                return null;
            }
            expected = narrowed(expected, view).get();
            actual = narrowed(actual, view).get();
        }
        NavigableMap<Long, String> m = expected;
        NavigableMap<Long, String> v = actual;
        Object e = outcome(() -> change(op, m));
        Object a = outcome(() -> change(op, v));
        if (!Objects.equals(e, a)) {
            return "through " + actual.getClass().getSimpleName() + " it gave " + a + ", the model " + e;
        }
        if (!new ArrayList<>(expected.entrySet()).equals(new ArrayList<>(actual.entrySet()))) {
            return "the view holds " + actual + ", the model's " + expected;
        }
        return null;
    }

    /** A narrowing of {@code m} chosen by {@code bits}: descending, head, tail or sub-map. */
    private static Supplier<NavigableMap<Long, String>> narrowed(NavigableMap<Long, String> m, long bits) {
        Random r = new Random(bits);
        long a = key(r);
        // Bounds that meet or sit next to each other are where off-by-one mistakes hide.
        long b = switch (r.nextInt(4)) {
            case 0 -> a;
            case 1 -> a + 1;
            default -> key(r);
        };
        boolean ai = r.nextBoolean();
        boolean bi = r.nextBoolean();
        return switch (r.nextInt(4)) {
            case 0 -> m::descendingMap;
            case 1 -> () -> m.headMap(a, ai);
            case 2 -> () -> m.tailMap(a, ai);
            default -> () -> m.comparator() != null && m.comparator().compare(a, b) > 0 || m.comparator() == null && a > b
                    ? m.subMap(b, bi, a, ai) : m.subMap(a, ai, b, bi);
        };
    }

    /** What {@code work} returned, or the class of what it threw (its message is the map's own). */
    private static Object outcome(Supplier<?> work) {
        try {
            Object result = work.get();
            if (result instanceof NavigableMap<?, ?>) {
                return "a map";
            }
            return result instanceof Map.Entry<?, ?> e ? new AbstractMap.SimpleImmutableEntry<>(e) : result;
        } catch (RuntimeException e) {
            return e.getClass();
        }
    }

    private static Object change(Op op, NavigableMap<Long, String> m) {
        long k = op.key;
        String value = "v" + op.pick % 1000;
        boolean nothing = op.pick % 5 == 0;
        return switch (op.kind) {
            case PUT -> m.put(k, value);
            case REMOVE -> m.remove(k);
            case PUT_IF_ABSENT -> m.putIfAbsent(k, value);
            case REPLACE -> m.replace(k, value);
            case REPLACE_IF -> m.replace(k, nothing ? "v" + op.other : m.get(k), value);
            case REMOVE_IF -> m.remove(k, nothing ? "v" + op.other : m.get(k));
            case GET_OR_DEFAULT -> m.getOrDefault(k, "default");
            case COMPUTE_IF_ABSENT -> m.computeIfAbsent(k, key -> nothing ? null : value + key);
            case COMPUTE_IF_PRESENT -> m.computeIfPresent(k, (key, old) -> nothing ? null : old + "+");
            case COMPUTE -> m.compute(k, (key, old) -> nothing ? null : old + value);
            case MERGE -> m.merge(k, value, (old, given) -> nothing ? null : old + given);
            case POLL_FIRST -> m.pollFirstEntry();
            case POLL_LAST -> m.pollLastEntry();
            case CLEAR -> {
                m.clear();
                yield m.size();
            }
            case ITERATOR_REMOVE -> {
                // Removes every entry whose key the pick divides, as it goes.
                int step = 1 + op.pick % 4;
                List<Long> removed = new ArrayList<>();
                for (Iterator<Map.Entry<Long, String>> it = m.entrySet().iterator(); it.hasNext();) {
                    long key = it.next().getKey();
                    if (Math.floorMod(key, step) == 0) {
                        it.remove();
                        removed.add(key);
                    }
                }
                yield removed;
            }
            case KEY_SET_REMOVE -> m.keySet().remove(k);
            case REPLACE_ALL -> {
                m.replaceAll((key, old) -> key % 3 == 0 ? old + "*" : old);
                yield m.size();
            }
            case SET_VALUE -> {
                List<String> old = new ArrayList<>();
                for (Map.Entry<Long, String> e : m.entrySet()) {
                    if (Math.floorMod(e.getKey(), 7) == op.pick % 7) {
                        old.add(e.setValue(value));
                    }
                }
                yield old;
            }
            case KEY_SET_POLL_FIRST -> m.navigableKeySet().pollFirst();
            default -> throw new IllegalStateException(op.kind.toString());
        };
    }
}
