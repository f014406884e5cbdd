// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * A tree seen through codecs: keys and values of Java types instead of bytes. Reads decode
 * straight from page memory (a {@link Codecs#LONG} key or value allocates nothing but its box);
 * writes encode. Like {@link Tree}, a typed tree is a handle: it reads and writes through the
 * {@link Snapshot} or {@link WriteTxn} it is given, and is shared freely between threads.
 *
 * <pre>{@code
 * TypedTree<Long, String> users = TypedTree.of(store.tree("users"), Codecs.LONG, Codecs.STRING);
 * store.update(tx -> {
 *     tx.createTreeIfAbsent(users.tree().name());
 *     users.put(tx, 42L, "alice");
 * });
 * String name = store.read(s -> users.get(s, 42L));
 * // A java.util.NavigableMap bound to the transaction, for everyday map operations:
 * String before = store.write(tx -> users.asMap(tx).put(42L, "bob"));
 * }</pre>
 *
 * <p>Keys order as their codecs' encodings (unsigned bytes). Null keys and values are refused with a
 * {@link NullPointerException} naming the argument; wherever a method takes a range bound, null is
 * an open bound.
 *
 * <p><b>Iterating while writing.</b> A range, cursor or map view read through a {@link WriteTxn}
 * sees the transaction as it stands at each step, its own writes included: a loop over a range that
 * puts keys ahead of its position meets them again (and one that always puts a key ahead never
 * ends). To change a tree by what it held before, read through a {@link Snapshot} opened before the
 * transaction began, or collect the keys first.
 *
 * @param <K> keys, ordered as their codec's encodings
 * @param <V> values
 */
public final class TypedTree<K, V> {
    private static final byte[] EMPTY = new byte[0];

    private final Tree tree;
    private final Codec<K> keys;
    private final Codec<V> values;

    private TypedTree(Tree tree, Codec<K> keys, Codec<V> values) {
        this.tree = Objects.requireNonNull(tree, "tree must not be null");
        this.keys = Objects.requireNonNull(keys, "key codec must not be null");
        this.values = Objects.requireNonNull(values, "value codec must not be null");
    }

    public static <K, V> TypedTree<K, V> of(Tree tree, Codec<K> keys, Codec<V> values) {
        return new TypedTree<>(tree, keys, values);
    }

    /** The tree underneath. */
    public Tree tree() {
        return tree;
    }

    Codec<K> keys() {
        return keys;
    }

    Codec<V> values() {
        return values;
    }

    /** The encoding of {@code key}, refusing null with a message that names it. */
    byte[] encodeKey(Object key) {
        @SuppressWarnings("unchecked")
        K k = (K) Objects.requireNonNull(key, "key must not be null");
        return keys.encode(k);
    }

    byte[] encodeValue(V value) {
        return values.encode(Objects.requireNonNull(value, "value must not be null"));
    }

    /** The encoding of a range bound; null (an open bound) stays null. */
    private byte[] bound(K key) {
        return key == null ? null : keys.encode(key);
    }

    /** The value of {@code key}, or null. */
    public V get(ReadView view, K key) {
        UnsafeBuffer k = new UnsafeBuffer(encodeKey(key));
        UnsafeBuffer v = new UnsafeBuffer(EMPTY);
        return view.get(tree, k, v) ? values.decode(v, 0, v.capacity()) : null;
    }

    public boolean contains(ReadView view, K key) {
        return view.contains(tree, encodeKey(key));
    }

    /** Entries in the tree (O(1)). */
    public long count(ReadView view) {
        return view.count(tree);
    }

    /**
     * Number of keys below {@code key} ({@code inclusive}: at or below), in O(log n); the index
     * {@code key} has, or would have, in key order.
     */
    public long rank(ReadView view, K key, boolean inclusive) {
        return view.rank(tree, encodeKey(key), inclusive);
    }

    /** Number of keys in [from, to), in O(log n); a null bound is open. */
    public long countRange(ReadView view, K from, K to) {
        return view.countRange(tree, bound(from), bound(to));
    }

    /**
     * Stores {@code value} under {@code key}; returns true if the key is new. One descent: for the
     * value it replaced, {@code asMap(tx).put(key, value)} (a lookup more).
     */
    public boolean put(WriteTxn tx, K key, V value) {
        return tx.put(tree, encodeKey(key), encodeValue(value));
    }

    /** Deletes {@code key}; returns true if it was there. */
    public boolean delete(WriteTxn tx, K key) {
        return tx.delete(tree, encodeKey(key));
    }

    /**
     * Deletes the keys in [from, to) ({@link WriteTxn#deleteRange}), a null bound open; returns how
     * many there were.
     */
    public long deleteRange(WriteTxn tx, K from, K to) {
        return tx.deleteRange(tree, bound(from), bound(to));
    }

    /**
     * The entries with keys in [from, to), in key order; a null bound is open. Each iteration opens a
     * cursor on {@code view}; entries are decoded as they are reached. In a write transaction the
     * iteration sees the transaction's own writes as it goes (see the class comment); its
     * iterator's {@code remove()} deletes the entry it returned last.
     */
    public Iterable<Map.Entry<K, V>> range(ReadView view, K from, K to) {
        return TreeMapView.of(view, this).within(bound(from), bound(to), false).entrySet();
    }

    /** {@link #range} from the last key below {@code to} down to {@code from}: [from, to) in descending order. */
    public Iterable<Map.Entry<K, V>> rangeDescending(ReadView view, K from, K to) {
        return TreeMapView.of(view, this).within(bound(from), bound(to), true).entrySet();
    }

    /**
     * A cursor over the tree in {@code view}, moving both ways and decoding keys and values; close it
     * (or its view) when done.
     */
    public TypedCursor<K, V> cursor(ReadView view) {
        return new TypedCursor<>(view.cursor(tree), this);
    }

    /**
     * A read-only {@link java.util.NavigableMap} of this tree as {@code view} holds it (a
     * {@link Snapshot}, or a {@link WriteTxn} as it stands), for code that takes a {@code SortedMap}
     * or {@code NavigableMap}: sub-, head-, tail- and descending maps, navigation and streams, in
     * the order of the keys' encodings. {@code size()} is O(log n) from the counted tree; each
     * lookup or navigation is one descent. Valid while the view is open; changes throw
     * {@link UnsupportedOperationException} (a map that writes: {@link #asMap(WriteTxn)}).
     */
    public NavigableMap<K, V> asMap(ReadView view) {
        return TreeMapView.of(view, this);
    }

    /**
     * The tree in {@code tx} as a {@link NavigableMap} that writes through the transaction: {@code put}
     * returns the value it replaced; {@code putIfAbsent}, {@code replace}, {@code compute},
     * {@code computeIfAbsent}, {@code computeIfPresent}, {@code merge}, {@code remove(key, value)},
     * {@code pollFirstEntry} and iterator {@code remove()} work as a {@link java.util.TreeMap}'s
     * do; {@code clear()} of the map or of a sub-, head- or tail-map is one range delete
     * ({@link WriteTxn#deleteRange}), whatever the entries. A sub-map refuses keys outside its
     * range as TreeMap's does. Null keys and values throw {@link NullPointerException}, as in a
     * TreeMap with natural ordering.
     *
     * <p>Changes reach readers when {@code tx} commits; the map is valid until it ends. Iterations
     * see the transaction as it stands at each step (see the class comment): a loop that puts keys
     * ahead of itself meets them.
     */
    public NavigableMap<K, V> asMap(WriteTxn tx) {
        return TreeMapView.writable(tx, this);
    }
}
