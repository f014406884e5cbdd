// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * A {@link Cursor} that speaks a {@link TypedTree}'s types: it seeks by key and decodes the key and
 * value it stands on. Positioning methods return whether it now stands on an entry. In a write
 * transaction it sees the transaction's own writes, as {@link Cursor} does. Close it (or its view)
 * when done; not thread-safe.
 *
 * <pre>{@code
 * try (TypedCursor<Long, String> c = users.cursor(snapshot)) {
 *     for (boolean on = c.seekFloor(100L); on; on = c.prev()) {   // keys at or below 100, descending
 *         System.out.println(c.key() + " " + c.value());
 *     }
 * }
 * }</pre>
 *
 * @param <K> keys
 * @param <V> values
 */
public final class TypedCursor<K, V> implements AutoCloseable {
    private final Cursor cursor;
    private final TypedTree<K, V> typed;

    TypedCursor(Cursor cursor, TypedTree<K, V> typed) {
        this.cursor = cursor;
        this.typed = typed;
    }

    /** Moves to the first entry. */
    public boolean first() {
        return cursor.first();
    }

    /** Moves to the last entry. */
    public boolean last() {
        return cursor.last();
    }

    /** Moves to the first key at or above {@code key}. */
    public boolean seek(K key) {
        return cursor.seek(typed.encodeKey(key));
    }

    /** Moves to the last key at or below {@code key}. */
    public boolean seekFloor(K key) {
        return cursor.seekFloor(typed.encodeKey(key));
    }

    /** Moves to the entry at index {@code position} in key order (0-based), in O(log n). */
    public boolean seekPosition(long position) {
        return cursor.seekPosition(position);
    }

    /** Index of the current entry in key order (0-based), in O(log n). */
    public long position() {
        return cursor.position();
    }

    /** Moves {@code entries} forward (back, if negative) in O(log n); false if that leaves the tree. */
    public boolean skip(long entries) {
        return cursor.skip(entries);
    }

    public boolean next() {
        return cursor.next();
    }

    public boolean prev() {
        return cursor.prev();
    }

    /** Whether the cursor stands on an entry. */
    public boolean isPositioned() {
        return cursor.isPositioned();
    }

    /** The current key, decoded (an object of its own, valid after the cursor moves). */
    public K key() {
        return typed.keys().decode(cursor.key(), 0, cursor.keyLength());
    }

    /** The current value, decoded (an object of its own, valid after the cursor moves). */
    public V value() {
        return typed.values().decode(cursor.value(), 0, cursor.valueLength());
    }

    /** The byte cursor underneath, for zero-copy reads of the current entry. */
    public Cursor bytes() {
        return cursor;
    }

    @Override
    public void close() {
        cursor.close();
    }
}
