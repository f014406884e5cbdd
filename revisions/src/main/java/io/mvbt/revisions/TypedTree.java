// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.AbstractMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
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
 * try (WriteTxn tx = store.beginWrite()) {
 *     tx.createTreeIfAbsent(users.tree().name());
 *     users.put(tx, 42L, "alice");
 *     tx.commit();
 * }
 * try (Snapshot s = store.beginRead()) {
 *     String name = users.get(s, 42L);
 * }
 * }</pre>
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
        this.tree = Objects.requireNonNull(tree);
        this.keys = Objects.requireNonNull(keys);
        this.values = Objects.requireNonNull(values);
    }

    public static <K, V> TypedTree<K, V> of(Tree tree, Codec<K> keys, Codec<V> values) {
        return new TypedTree<>(tree, keys, values);
    }

    /** The tree underneath. */
    public Tree tree() {
        return tree;
    }

    /** The value of {@code key}, or null. */
    public V get(ReadView view, K key) {
        UnsafeBuffer k = new UnsafeBuffer(keys.encode(key));
        UnsafeBuffer v = new UnsafeBuffer(EMPTY);
        return view.get(tree, k, v) ? values.decode(v, 0, v.capacity()) : null;
    }

    public boolean contains(ReadView view, K key) {
        return view.contains(tree, keys.encode(key));
    }

    /** Entries in the tree (O(1)). */
    public long count(ReadView view) {
        return view.count(tree);
    }

    /** Stores {@code value} under {@code key}; returns true if the key is new. */
    public boolean put(WriteTxn tx, K key, V value) {
        return tx.put(tree, keys.encode(key), values.encode(value));
    }

    /** Deletes {@code key}; returns true if it was there. */
    public boolean delete(WriteTxn tx, K key) {
        return tx.delete(tree, keys.encode(key));
    }

    /** Deletes the keys in [from, to) ({@link WriteTxn#deleteRange}); returns how many there were. */
    public long deleteRange(WriteTxn tx, K from, K to) {
        return tx.deleteRange(tree, keys.encode(from), keys.encode(to));
    }

    /**
     * The entries with keys in [from, to), in key order; a null bound is open. Each iteration opens a
     * cursor on {@code view}; entries are decoded as they are reached.
     */
    public Iterable<Map.Entry<K, V>> range(ReadView view, K from, K to) {
        byte[] low = from == null ? null : keys.encode(from);
        byte[] high = to == null ? null : keys.encode(to);
        return () -> new Iterator<>() {
            private final Cursor cursor = view.cursor(tree);
            private boolean positioned = low == null ? cursor.first() : cursor.seek(low);

            @Override
            public boolean hasNext() {
                if (positioned && high != null && cursor.compareKey(high) >= 0) {
                    positioned = false;
                }
                if (!positioned) {
                    cursor.close();
                }
                return positioned;
            }

            @Override
            public Map.Entry<K, V> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                K k = keys.decode(cursor.key(), 0, cursor.keyLength());
                V v = values.decode(cursor.value(), 0, cursor.valueLength());
                positioned = cursor.next();
                return new AbstractMap.SimpleImmutableEntry<>(k, v);
            }
        };
    }

    /**
     * A read-only {@link java.util.NavigableMap} of this tree as {@code view} holds it (a
     * {@link Snapshot}, or a {@link WriteTxn} as it stands), for code that takes a {@code SortedMap}
     * or {@code NavigableMap}: sub-, head-, tail- and descending maps, navigation and streams, in
     * the order of the keys' encodings. {@code size()} is O(log n) from the counted tree; each
     * lookup or navigation is one descent. Valid while the view is open; changes throw
     * {@link UnsupportedOperationException}.
     */
    public java.util.NavigableMap<K, V> asMap(ReadView view) {
        return new TreeMapView<>(view, this, keys, values, null, false, null, false, false);
    }

}
