// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link TypedTree#asMap}: a read-only {@link NavigableMap} over one view (a snapshot, or a write
 * transaction as it stands), within optional bounds and in either direction. Keys are ordered by
 * their encodings; {@code size()} is O(log n) from the counted tree; each lookup or navigation is
 * one descent, each iteration one cursor. Changes throw {@link UnsupportedOperationException}.
 */
final class TreeMapView<K, V> extends AbstractMap<K, V> implements NavigableMap<K, V> {
    private static final byte[] EMPTY = new byte[0];

    private final ReadView view;
    private final TypedTree<K, V> typed;
    private final Codec<K> keys;
    private final Codec<V> values;
    /** Bounds as encodings (null: none), in the tree's ascending order. */
    private final byte[] lo;
    private final boolean loInclusive;
    private final byte[] hi;
    private final boolean hiInclusive;
    private final boolean descending;

    TreeMapView(ReadView view, TypedTree<K, V> typed, Codec<K> keys, Codec<V> values, byte[] lo, boolean loInclusive,
            byte[] hi, boolean hiInclusive, boolean descending) {
        this.view = view;
        this.typed = typed;
        this.keys = keys;
        this.values = values;
        this.lo = lo;
        this.loInclusive = loInclusive;
        this.hi = hi;
        this.hiInclusive = hiInclusive;
        this.descending = descending;
    }

    // ------------------------------------------------------------------ bounds, in encodings

    private boolean tooLow(byte[] k) {
        return lo != null && belowLow(Arrays.compareUnsigned(k, lo));
    }

    private boolean tooHigh(byte[] k) {
        return hi != null && aboveHigh(Arrays.compareUnsigned(k, hi));
    }

    /** Whether a key that compares so with the lower bound lies below the range. */
    private boolean belowLow(int vsLow) {
        return vsLow < 0 || vsLow == 0 && !loInclusive;
    }

    private boolean aboveHigh(int vsHigh) {
        return vsHigh > 0 || vsHigh == 0 && !hiInclusive;
    }

    private boolean inRange(byte[] k) {
        return !tooLow(k) && !tooHigh(k);
    }

    @SuppressWarnings("unchecked")
    private byte[] encode(Object key) {
        return keys.encode((K) key);
    }

    // ------------------------------------------------------------------ the tree's order

    /** The entry at the cursor, or null if it is not positioned or out of range. */
    private Entry<K, V> at(Cursor c) {
        if (!c.isPositioned() || lo != null && belowLow(c.compareKey(lo)) || hi != null && aboveHigh(c.compareKey(hi))) {
            return null;
        }
        return new SimpleImmutableEntry<>(keys.decode(c.key(), 0, c.keyLength()), values.decode(c.value(), 0,
                c.valueLength()));
    }

    /** Moves to the first key at or above ({@code inclusive}) or above {@code k}. */
    private static void ceiling(Cursor c, byte[] k, boolean inclusive) {
        if (c.seek(k) && !inclusive && c.compareKey(k) == 0) {
            c.next();
        }
    }

    /** Moves to the last key at or below ({@code inclusive}) or below {@code k}. */
    private static void floor(Cursor c, byte[] k, boolean inclusive) {
        if (c.seekFloor(k) && !inclusive && c.compareKey(k) == 0) {
            c.prev();
        }
    }

    private void lowest(Cursor c) {
        if (lo == null) {
            c.first();
        } else {
            ceiling(c, lo, loInclusive);
        }
    }

    private void highest(Cursor c) {
        if (hi == null) {
            c.last();
        } else {
            floor(c, hi, hiInclusive);
        }
    }

    /** The entry with the smallest key in range at or above (or above) {@code k}, in the tree's order. */
    private Entry<K, V> up(byte[] k, boolean inclusive) {
        try (Cursor c = view.cursor(typed.tree())) {
            if (tooLow(k)) {
                lowest(c);
            } else {
                ceiling(c, k, inclusive);
            }
            return at(c);
        }
    }

    /** The entry with the largest key in range at or below (or below) {@code k}, in the tree's order. */
    private Entry<K, V> down(byte[] k, boolean inclusive) {
        try (Cursor c = view.cursor(typed.tree())) {
            if (tooHigh(k)) {
                highest(c);
            } else {
                floor(c, k, inclusive);
            }
            return at(c);
        }
    }

    private Entry<K, V> lowestEntry() {
        try (Cursor c = view.cursor(typed.tree())) {
            lowest(c);
            return at(c);
        }
    }

    private Entry<K, V> highestEntry() {
        try (Cursor c = view.cursor(typed.tree())) {
            highest(c);
            return at(c);
        }
    }

    // ------------------------------------------------------------------ Map

    @Override
    public V get(Object key) {
        byte[] k = encode(key);
        UnsafeBuffer value = new UnsafeBuffer(EMPTY);
        return inRange(k) && view.get(typed.tree(), new UnsafeBuffer(k), value)
                ? values.decode(value, 0, value.capacity()) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        byte[] k = encode(key);
        return inRange(k) && view.contains(typed.tree(), k);
    }

    @Override
    public int size() {
        long below = hi == null ? view.count(typed.tree()) : view.rank(typed.tree(), hi, hiInclusive);
        long under = lo == null ? 0 : view.rank(typed.tree(), lo, !loInclusive);
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, below - under));
    }

    @Override
    public boolean isEmpty() {
        return lowestEntry() == null;
    }

    @Override
    public Set<Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<K, V>> iterator() {
                return new Iterator<>() {
                    private final Cursor cursor = view.cursor(typed.tree());
                    private Entry<K, V> next = start();

                    private Entry<K, V> start() {
                        if (descending) {
                            highest(cursor);
                        } else {
                            lowest(cursor);
                        }
                        return step();
                    }

                    private Entry<K, V> step() {
                        Entry<K, V> e = at(cursor);
                        if (e == null) {
                            cursor.close();
                        }
                        return e;
                    }

                    @Override
                    public boolean hasNext() {
                        return next != null;
                    }

                    @Override
                    public Entry<K, V> next() {
                        Entry<K, V> e = next;
                        if (e == null) {
                            throw new NoSuchElementException();
                        }
                        if (descending) {
                            cursor.prev();
                        } else {
                            cursor.next();
                        }
                        next = step();
                        return e;
                    }
                };
            }

            @Override
            public int size() {
                return TreeMapView.this.size();
            }
        };
    }

    // ------------------------------------------------------------------ SortedMap, NavigableMap

    @Override
    public Comparator<? super K> comparator() {
        Comparator<K> ascending = (a, b) -> Arrays.compareUnsigned(keys.encode(a), keys.encode(b));
        return descending ? ascending.reversed() : ascending;
    }

    @Override
    public Entry<K, V> firstEntry() {
        return descending ? highestEntry() : lowestEntry();
    }

    @Override
    public Entry<K, V> lastEntry() {
        return descending ? lowestEntry() : highestEntry();
    }

    @Override
    public K firstKey() {
        return key(firstEntry());
    }

    @Override
    public K lastKey() {
        return key(lastEntry());
    }

    private static <K> K key(Entry<K, ?> e) {
        if (e == null) {
            throw new NoSuchElementException();
        }
        return e.getKey();
    }

    private static <K> K keyOrNull(Entry<K, ?> e) {
        return e == null ? null : e.getKey();
    }

    @Override
    public Entry<K, V> ceilingEntry(K key) {
        return descending ? down(keys.encode(key), true) : up(keys.encode(key), true);
    }

    @Override
    public Entry<K, V> higherEntry(K key) {
        return descending ? down(keys.encode(key), false) : up(keys.encode(key), false);
    }

    @Override
    public Entry<K, V> floorEntry(K key) {
        return descending ? up(keys.encode(key), true) : down(keys.encode(key), true);
    }

    @Override
    public Entry<K, V> lowerEntry(K key) {
        return descending ? up(keys.encode(key), false) : down(keys.encode(key), false);
    }

    @Override
    public K ceilingKey(K key) {
        return keyOrNull(ceilingEntry(key));
    }

    @Override
    public K higherKey(K key) {
        return keyOrNull(higherEntry(key));
    }

    @Override
    public K floorKey(K key) {
        return keyOrNull(floorEntry(key));
    }

    @Override
    public K lowerKey(K key) {
        return keyOrNull(lowerEntry(key));
    }

    @Override
    public NavigableMap<K, V> descendingMap() {
        return new TreeMapView<>(view, typed, keys, values, lo, loInclusive, hi, hiInclusive, !descending);
    }

    @Override
    public NavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        if (comparator().compare(fromKey, toKey) > 0) {
            throw new IllegalArgumentException("fromKey > toKey");
        }
        return descending ? bounded(toKey, toInclusive, fromKey, fromInclusive)
                : bounded(fromKey, fromInclusive, toKey, toInclusive);
    }

    @Override
    public NavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        return descending ? bounded(toKey, inclusive, null, false) : bounded(null, false, toKey, inclusive);
    }

    @Override
    public NavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        return descending ? bounded(null, false, fromKey, inclusive) : bounded(fromKey, inclusive, null, false);
    }

    /** This map narrowed to [low, high] in the tree's order (a null bound: this map's own). */
    private NavigableMap<K, V> bounded(K low, boolean lowInclusive, K high, boolean highInclusive) {
        byte[] l = lo;
        boolean li = loInclusive;
        byte[] h = hi;
        boolean hiIncl = hiInclusive;
        if (low != null) {
            l = allowedBound(keys.encode(low), lowInclusive);
            li = lowInclusive;
        }
        if (high != null) {
            h = allowedBound(keys.encode(high), highInclusive);
            hiIncl = highInclusive;
        }
        return new TreeMapView<>(view, typed, keys, values, l, li, h, hiIncl, descending);
    }

    /**
     * {@code k} if it may bound a sub-map, as {@link java.util.TreeMap}'s sub-maps decide: an
     * inclusive bound must lie in this map's range, an exclusive one in its closed range.
     */
    private byte[] allowedBound(byte[] k, boolean inclusive) {
        boolean closed = (lo == null || Arrays.compareUnsigned(k, lo) >= 0)
                && (hi == null || Arrays.compareUnsigned(k, hi) <= 0);
        if (inclusive ? !inRange(k) : !closed) {
            throw new IllegalArgumentException("key out of range");
        }
        return k;
    }

    @Override
    public SortedMap<K, V> subMap(K fromKey, K toKey) {
        return subMap(fromKey, true, toKey, false);
    }

    @Override
    public SortedMap<K, V> headMap(K toKey) {
        return headMap(toKey, false);
    }

    @Override
    public SortedMap<K, V> tailMap(K fromKey) {
        return tailMap(fromKey, true);
    }

    @Override
    public NavigableSet<K> navigableKeySet() {
        return new KeySet<>(this);
    }

    @Override
    public NavigableSet<K> keySet() {
        return navigableKeySet();
    }

    @Override
    public NavigableSet<K> descendingKeySet() {
        return descendingMap().navigableKeySet();
    }

    @Override
    public Entry<K, V> pollFirstEntry() {
        throw readOnly();
    }

    @Override
    public Entry<K, V> pollLastEntry() {
        throw readOnly();
    }

    @Override
    public V put(K key, V value) {
        throw readOnly();
    }

    @Override
    public V remove(Object key) {
        throw readOnly();
    }

    @Override
    public void clear() {
        throw readOnly();
    }

    static UnsupportedOperationException readOnly() {
        return new UnsupportedOperationException("a map view of a tree is read-only: write through a WriteTxn");
    }

    /** The keys of a {@link TreeMapView}, navigated through it. */
    private static final class KeySet<K> extends AbstractSet<K> implements NavigableSet<K> {
        private final NavigableMap<K, ?> map;

        KeySet(NavigableMap<K, ?> map) {
            this.map = map;
        }

        @Override
        public Iterator<K> iterator() {
            Iterator<? extends Entry<K, ?>> entries = map.entrySet().iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return entries.hasNext();
                }

                @Override
                public K next() {
                    return entries.next().getKey();
                }
            };
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public boolean contains(Object o) {
            return map.containsKey(o);
        }

        @Override
        public Comparator<? super K> comparator() {
            return map.comparator();
        }

        @Override
        public K first() {
            return map.firstKey();
        }

        @Override
        public K last() {
            return map.lastKey();
        }

        @Override
        public K lower(K k) {
            return map.lowerKey(k);
        }

        @Override
        public K floor(K k) {
            return map.floorKey(k);
        }

        @Override
        public K ceiling(K k) {
            return map.ceilingKey(k);
        }

        @Override
        public K higher(K k) {
            return map.higherKey(k);
        }

        @Override
        public K pollFirst() {
            throw readOnly();
        }

        @Override
        public K pollLast() {
            throw readOnly();
        }

        @Override
        public NavigableSet<K> descendingSet() {
            return map.descendingKeySet();
        }

        @Override
        public Iterator<K> descendingIterator() {
            return descendingSet().iterator();
        }

        @Override
        public NavigableSet<K> subSet(K from, boolean fromInclusive, K to, boolean toInclusive) {
            return map.subMap(from, fromInclusive, to, toInclusive).navigableKeySet();
        }

        @Override
        public NavigableSet<K> headSet(K to, boolean inclusive) {
            return map.headMap(to, inclusive).navigableKeySet();
        }

        @Override
        public NavigableSet<K> tailSet(K from, boolean inclusive) {
            return map.tailMap(from, inclusive).navigableKeySet();
        }

        @Override
        public SortedSet<K> subSet(K from, K to) {
            return subSet(from, true, to, false);
        }

        @Override
        public SortedSet<K> headSet(K to) {
            return headSet(to, false);
        }

        @Override
        public SortedSet<K> tailSet(K from) {
            return tailSet(from, true);
        }
    }
}
