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
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link TypedTree#asMap}: a {@link NavigableMap} over one view (a snapshot, or a write transaction
 * as it stands), within optional bounds and in either direction. Keys are ordered by their
 * encodings; {@code size()} is O(log n) from the counted tree; each lookup or navigation is one
 * descent, each iteration one cursor. This class is read-only: every change asks {@link #txn()},
 * which throws {@link UnsupportedOperationException}; {@link TxnTreeMap} writes through its
 * transaction.
 *
 * <p>An iteration steps lazily: {@code hasNext()} moves from the entry returned last to the next
 * one in the view as it stands then, so in a write transaction it sees every write ahead of that
 * entry, and changes through the map (or the iterator's {@code remove()}) never make it skip or
 * repeat an entry.
 */
class TreeMapView<K, V> extends AbstractMap<K, V> implements NavigableMap<K, V> {
    private static final byte[] EMPTY = new byte[0];

    final ReadView view;
    final TypedTree<K, V> typed;
    final Codec<K> keys;
    final Codec<V> values;
    /** Bounds as encodings (null: none), in the tree's ascending order. */
    final byte[] lo;
    final boolean loInclusive;
    final byte[] hi;
    final boolean hiInclusive;
    final boolean descending;

    TreeMapView(ReadView view, TypedTree<K, V> typed, byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive,
            boolean descending) {
        this.view = view;
        this.typed = typed;
        this.keys = typed.keys();
        this.values = typed.values();
        this.lo = lo;
        this.loInclusive = loInclusive;
        this.hi = hi;
        this.hiInclusive = hiInclusive;
        this.descending = descending;
    }

    /** The whole tree in {@code view}, read-only. */
    static <K, V> TreeMapView<K, V> of(ReadView view, TypedTree<K, V> typed) {
        return new TreeMapView<>(Objects.requireNonNull(view, "view must not be null"), typed, null, false, null, false,
                false);
    }

    /** The whole tree in {@code tx}, written through it. */
    static <K, V> TreeMapView<K, V> writable(WriteTxn tx, TypedTree<K, V> typed) {
        return new TxnTreeMap<>(Objects.requireNonNull(tx, "tx must not be null"), typed, null, false, null, false,
                false);
    }

    /** The same kind of map over the same view with other bounds and direction. */
    TreeMapView<K, V> narrowed(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, boolean descending) {
        return new TreeMapView<>(view, typed, lo, loInclusive, hi, hiInclusive, descending);
    }

    /** The keys in [from, to) (a null bound open), unchecked against this map's bounds: {@link TypedTree#range}. */
    TreeMapView<K, V> within(byte[] from, byte[] to, boolean inDescendingOrder) {
        return narrowed(from, true, to, false, inDescendingOrder);
    }

    /** The transaction changes go through; a read-only view refuses them here. */
    WriteTxn txn() {
        throw new UnsupportedOperationException("this map view of tree '" + typed.tree().name() + "' reads a "
                + "snapshot and is read-only: write through TypedTree.asMap(WriteTxn), or a WriteTxn");
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

    final boolean inRange(byte[] k) {
        return !tooLow(k) && !tooHigh(k);
    }

    private byte[] encode(Object key) {
        return typed.encodeKey(key);
    }

    // ------------------------------------------------------------------ the tree's order

    /** Whether the cursor stands on an entry within the bounds. */
    private boolean onEntryInRange(Cursor c) {
        return c.isPositioned() && (lo == null || !belowLow(c.compareKey(lo))) && (hi == null || !aboveHigh(c.compareKey(hi)));
    }

    /** The entry at the cursor, or null if it is not positioned or out of range. */
    private Entry<K, V> at(Cursor c) {
        return onEntryInRange(c) ? new SimpleImmutableEntry<>(keyAt(c), valueAt(c)) : null;
    }

    private K keyAt(Cursor c) {
        return keys.decode(c.key(), 0, c.keyLength());
    }

    private V valueAt(Cursor c) {
        return values.decode(c.value(), 0, c.valueLength());
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

    // ------------------------------------------------------------------ Map: reads

    /** The value of the encoded key {@code k}, whether or not it is in range, or null. */
    private V valueOf(byte[] k) {
        UnsafeBuffer value = new UnsafeBuffer(EMPTY);
        return view.get(typed.tree(), new UnsafeBuffer(k), value) ? values.decode(value, 0, value.capacity()) : null;
    }

    @Override
    public V get(Object key) {
        byte[] k = encode(key);
        return inRange(k) ? valueOf(k) : null;
    }

    @Override
    public V getOrDefault(Object key, V defaultValue) {
        V v = get(key);
        return v != null ? v : defaultValue;
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
                return new Entries();
            }

            @Override
            public int size() {
                return TreeMapView.this.size();
            }

            @Override
            public void clear() {
                TreeMapView.this.clear();
            }
        };
    }

    /**
     * The entries in the map's order, stepping lazily (see the class comment). Entries it returns
     * write through {@code setValue}, as a TreeMap's iteration entries do.
     */
    private final class Entries implements Iterator<Entry<K, V>> {
        private final Cursor cursor = view.cursor(typed.tree());
        private boolean started;
        private boolean exhausted;
        /** The entry {@code hasNext()} found, not yet returned. */
        private Entry<K, V> pending;
        /** The entry returned last, for {@code remove()}; null after a removal. */
        private Entry<K, V> last;

        @Override
        public boolean hasNext() {
            if (pending != null) {
                return true;
            }
            if (exhausted) {
                return false;
            }
            if (!started) {
                started = true;
                if (descending) {
                    highest(cursor);
                } else {
                    lowest(cursor);
                }
            } else if (descending) {
                cursor.prev();
            } else {
                cursor.next();
            }
            if (onEntryInRange(cursor)) {
                pending = new ViewEntry(keyAt(cursor), valueAt(cursor));
                return true;
            }
            exhausted = true;
            cursor.close();
            return false;
        }

        @Override
        public Entry<K, V> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            last = pending;
            pending = null;
            return last;
        }

        @Override
        public void remove() {
            if (last == null) {
                throw new IllegalStateException("remove() without a next() before it");
            }
            WriteTxn tx = txn();
            tx.delete(typed.tree(), encode(last.getKey()));
            last = null;
        }
    }

    /** An entry of an iteration: {@code setValue} puts the value into the map. */
    private final class ViewEntry extends SimpleEntry<K, V> {
        private static final long serialVersionUID = 1L;

        ViewEntry(K key, V value) {
            super(key, value);
        }

        @Override
        public V setValue(V value) {
            put(getKey(), value);
            return super.setValue(value);
        }
    }

    // ------------------------------------------------------------------ Map: writes

    /**
     * The encoding of {@code key}, which a put requires to lie within the map's bounds, as TreeMap's
     * sub-maps do (and, as theirs, the other writes only when they put).
     */
    private byte[] encodeInRange(Object key) {
        byte[] k = encode(key);
        if (!inRange(k)) {
            throw new IllegalArgumentException("key out of range");
        }
        return k;
    }

    @Override
    public V put(K key, V value) {
        WriteTxn tx = txn();
        byte[] k = encodeInRange(key);
        byte[] v = typed.encodeValue(value);
        V previous = valueOf(k);
        tx.put(typed.tree(), k, v);
        return previous;
    }

    @Override
    public V remove(Object key) {
        WriteTxn tx = txn();
        byte[] k = encode(key);
        V previous = inRange(k) ? valueOf(k) : null;
        if (previous != null) {
            tx.delete(typed.tree(), k);
        }
        return previous;
    }

    @Override
    public boolean remove(Object key, Object value) {
        txn();
        V current = get(key);
        if (current == null || !current.equals(value)) {
            return false;
        }
        remove(key);
        return true;
    }

    @Override
    public V putIfAbsent(K key, V value) {
        txn();
        Objects.requireNonNull(value, "value must not be null");
        V current = get(key);
        return current != null ? current : put(key, value);
    }

    @Override
    public V replace(K key, V value) {
        txn();
        Objects.requireNonNull(value, "value must not be null");
        return get(key) != null ? put(key, value) : null;
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        txn();
        Objects.requireNonNull(newValue, "newValue must not be null");
        V current = get(key);
        if (current == null || !current.equals(oldValue)) {
            return false;
        }
        put(key, newValue);
        return true;
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
        txn();
        Objects.requireNonNull(mappingFunction, "mappingFunction must not be null");
        V current = get(key);
        if (current != null) {
            return current;
        }
        V computed = mappingFunction.apply(key);
        if (computed != null) {
            put(key, computed);
        }
        return computed;
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        txn();
        Objects.requireNonNull(remappingFunction, "remappingFunction must not be null");
        V current = get(key);
        return current == null ? null : store(key, current, remappingFunction.apply(key, current));
    }

    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        txn();
        Objects.requireNonNull(remappingFunction, "remappingFunction must not be null");
        V current = get(key);
        return store(key, current, remappingFunction.apply(key, current));
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
        txn();
        Objects.requireNonNull(value, "value must not be null");
        Objects.requireNonNull(remappingFunction, "remappingFunction must not be null");
        V current = get(key);
        return store(key, current, current == null ? value : remappingFunction.apply(current, value));
    }

    /** Puts {@code computed} under {@code key}, or deletes the key if it is null; returns it. */
    private V store(K key, V current, V computed) {
        if (computed != null) {
            put(key, computed);
        } else if (current != null) {
            remove(key);
        }
        return computed;
    }

    @Override
    public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
        txn();
        Objects.requireNonNull(function, "function must not be null");
        super.replaceAll(function);
    }

    @Override
    public Entry<K, V> pollFirstEntry() {
        txn();
        return removed(firstEntry());
    }

    @Override
    public Entry<K, V> pollLastEntry() {
        txn();
        return removed(lastEntry());
    }

    private Entry<K, V> removed(Entry<K, V> e) {
        if (e != null) {
            remove(e.getKey());
        }
        return e;
    }

    /** Deletes every entry within the bounds: one range delete, whatever their number. */
    @Override
    public void clear() {
        WriteTxn tx = txn();
        byte[] from = lo;
        if (lo != null && !loInclusive) {
            from = successor(lo, tx.store.maxKeySize());
            if (from == null) {
                return;
            }
        }
        if (hi == null) {
            tx.deleteRange(typed.tree(), from, null);
            return;
        }
        int order = from == null ? -1 : Arrays.compareUnsigned(from, hi);
        if (order < 0) {
            tx.deleteRange(typed.tree(), from, hi);
        }
        if (hiInclusive && order <= 0) {
            tx.delete(typed.tree(), hi);
        }
    }

    /**
     * The smallest key above {@code k} no longer than {@code maxKeySize}, or null if there is none:
     * {@code k} with a zero byte appended, or, for a key of the longest length, its last byte that is
     * not 0xff raised by one and the bytes after it dropped.
     */
    static byte[] successor(byte[] k, int maxKeySize) {
        if (k.length < maxKeySize) {
            return Arrays.copyOf(k, k.length + 1);
        }
        for (int i = k.length - 1; i >= 0; i--) {
            if (k[i] != (byte) 0xff) {
                byte[] next = Arrays.copyOf(k, i + 1);
                next[i]++;
                return next;
            }
        }
        return null;
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
        return descending ? down(encode(key), true) : up(encode(key), true);
    }

    @Override
    public Entry<K, V> higherEntry(K key) {
        return descending ? down(encode(key), false) : up(encode(key), false);
    }

    @Override
    public Entry<K, V> floorEntry(K key) {
        return descending ? up(encode(key), true) : down(encode(key), true);
    }

    @Override
    public Entry<K, V> lowerEntry(K key) {
        return descending ? up(encode(key), false) : down(encode(key), false);
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
        return narrowed(lo, loInclusive, hi, hiInclusive, !descending);
    }

    @Override
    public NavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        if (comparator().compare(Objects.requireNonNull(fromKey, "fromKey must not be null"),
                Objects.requireNonNull(toKey, "toKey must not be null")) > 0) {
            throw new IllegalArgumentException("fromKey > toKey");
        }
        return descending ? bounded(toKey, toInclusive, fromKey, fromInclusive)
                : bounded(fromKey, fromInclusive, toKey, toInclusive);
    }

    @Override
    public NavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        Objects.requireNonNull(toKey, "toKey must not be null");
        return descending ? bounded(toKey, inclusive, null, false) : bounded(null, false, toKey, inclusive);
    }

    @Override
    public NavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        Objects.requireNonNull(fromKey, "fromKey must not be null");
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
        return narrowed(l, li, h, hiIncl, descending);
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

    /** The keys of a {@link TreeMapView}, navigated and changed through it. */
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

                @Override
                public void remove() {
                    entries.remove();
                }
            };
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public boolean isEmpty() {
            return map.isEmpty();
        }

        @Override
        public boolean contains(Object o) {
            return map.containsKey(o);
        }

        @Override
        public boolean remove(Object o) {
            return map.remove(o) != null;
        }

        @Override
        public void clear() {
            map.clear();
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
            return keyOrNull(map.pollFirstEntry());
        }

        @Override
        public K pollLast() {
            return keyOrNull(map.pollLastEntry());
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
