// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.cursor.IndexKey;
import io.mvbt.revisions.Codec;
import io.mvbt.revisions.Codecs;
import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Pair;
import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.directory.api.ldap.model.cursor.Tuple;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.api.ldap.model.exception.LdapUnwillingToPerformException;
import org.apache.directory.server.core.api.partition.PartitionTxn;
import org.apache.directory.server.xdbm.Table;

/**
 * An xdbm table in one mvbt tree. Without duplicates a key is the tree's key and the value its
 * value; with duplicates each (key, value) pair is one key of the tree, the key escaped so that
 * the pairs of one key are a contiguous range: counting them, testing one, and deleting them all
 * are each a descent or two, never a scan. Keys and values are ordered by their encodings, which
 * the codecs keep in the order of the attribute's matching rule.
 */
class MvbtTable<K, V> implements Table<K, V> {
    private static final byte[] EMPTY = new byte[0];

    private final Store store;
    private final Tree tree;
    private final Codec<K> keys;
    private final Codec<V> values;
    private final Codec<Pair<K, byte[]>> keyPrefix;
    private final Codec<Pair<K, V>> pairs;
    private final boolean dups;
    private final int maxKeySize;
    private final Comparator<K> keyComparator;
    private final Comparator<V> valueComparator;

    MvbtTable(Store store, Tree tree, Codec<K> keys, Codec<V> values, boolean dups,
            Comparator<K> keyComparator, Comparator<V> valueComparator) {
        this.store = store;
        this.tree = tree;
        this.keys = keys;
        this.values = values;
        this.keyPrefix = Codecs.pair(keys, Codecs.BYTES);
        this.pairs = Codecs.pair(keys, values);
        this.dups = dups;
        this.maxKeySize = store.maxKeySize();
        this.keyComparator = keyComparator;
        this.valueComparator = valueComparator;
    }

    @Override
    public Comparator<K> getKeyComparator() {
        return keyComparator;
    }

    @Override
    public Comparator<V> getValueComparator() {
        return valueComparator;
    }

    @Override
    public String getName() {
        return tree.name();
    }

    @Override
    public boolean isDupsEnabled() {
        return dups;
    }

    // ---- encodings

    /** The first key of {@code key}'s entries. */
    private byte[] lower(K key) {
        return dups ? keyPrefix.encode(new Pair<>(key, EMPTY)) : keys.encode(key);
    }

    /** The key after the last of {@code key}'s entries; null if none is. */
    private byte[] upper(K key) {
        return dups ? IndexKey.prefixEnd(lower(key)) : successor(keys.encode(key));
    }

    /** The smallest key greater than {@code key}: itself followed by a zero byte. */
    private static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    private byte[] pair(K key, V value) {
        return pairs.encode(new Pair<>(key, value));
    }

    private Tuple<K, V> decode(Cursor at) {
        DirectBuffer key = at.key();
        if (dups) {
            Pair<K, V> p = pairs.decode(key, 0, at.keyLength());
            return new Tuple<>(p.first(), p.second());
        }
        DirectBuffer value = at.value();
        return new Tuple<>(storedKey(key, at.keyLength(), value, at.valueLength()),
                storedValue(value, at.valueLength()));
    }

    /** What a table without duplicates stores under {@code key} for {@code value}. */
    byte[] stored(K key, V value) {
        return values.encode(value);
    }

    V storedValue(DirectBuffer stored, int length) {
        return values.decode(stored, 0, length);
    }

    K storedKey(DirectBuffer key, int keyLength, DirectBuffer stored, int storedLength) {
        return keys.decode(key, 0, keyLength);
    }

    /** The transaction's view, or the bound one's if the transaction is another partition's. */
    private PartitionView own(PartitionTxn txn) {
        PartitionView view = BoundTxn.of(txn);
        if (view.store() != store) {
            view = BoundTxn.of(null);
            if (view.store() != store) {
                throw new IllegalStateException("table " + tree.name() + " was read in a transaction of another partition");
            }
        }
        return view;
    }

    private ReadView view(PartitionTxn txn) {
        return own(txn).view();
    }

    private WriteTxn writer(PartitionTxn txn) {
        PartitionView view = own(txn);
        if (!(view instanceof WriteTxnAdapter)) {
            throw new IllegalStateException("an mvbt partition was changed outside a write transaction of its own");
        }
        return ((WriteTxnAdapter) view).txn();
    }

    /** Entries with keys in {@code [from, to)}, to null for no bound. */
    private long countRange(ReadView view, byte[] from, byte[] to) {
        long below = view.rank(tree, from, false);
        return (to == null ? view.count(tree) : view.rank(tree, to, false)) - below;
    }

    private byte[] checked(byte[] key) throws LdapException {
        if (key.length > maxKeySize) {
            throw new LdapUnwillingToPerformException("a key of " + key.length + " bytes for " + tree.name()
                    + " is longer than the " + maxKeySize + " bytes an mvbt partition's index keys may have");
        }
        return key;
    }

    // ---- assertions

    @Override
    public boolean has(PartitionTxn txn, K key) {
        ReadView view = view(txn);
        return dups ? countRange(view, lower(key), upper(key)) > 0 : view.contains(tree, keys.encode(key));
    }

    @Override
    public boolean has(PartitionTxn txn, K key, V value) {
        ReadView view = view(txn);
        if (dups) {
            return view.contains(tree, pair(key, value));
        }
        byte[] found = view.get(tree, keys.encode(key));
        return found != null && Objects.equals(decodeValue(found), value);
    }

    @Override
    public boolean hasGreaterOrEqual(PartitionTxn txn, K key) {
        return countRange(view(txn), lower(key), null) > 0;
    }

    @Override
    public boolean hasLessOrEqual(PartitionTxn txn, K key) {
        ReadView view = view(txn);
        byte[] to = upper(key);
        return to == null ? view.count(tree) > 0 : view.rank(tree, to, false) > 0;
    }

    @Override
    public boolean hasGreaterOrEqual(PartitionTxn txn, K key, V value) {
        if (!dups) {
            throw new UnsupportedOperationException(tree.name() + " has no duplicate keys");
        }
        return countRange(view(txn), pair(key, value), upper(key)) > 0;
    }

    @Override
    public boolean hasLessOrEqual(PartitionTxn txn, K key, V value) {
        if (!dups) {
            throw new UnsupportedOperationException(tree.name() + " has no duplicate keys");
        }
        return countRange(view(txn), lower(key), successor(pair(key, value))) > 0;
    }

    // ---- values

    private V decodeValue(byte[] bytes) {
        return storedValue(new UnsafeBuffer(bytes), bytes.length);
    }

    @Override
    public V get(PartitionTxn txn, K key) {
        if (key == null) {
            return null;
        }
        ReadView view = view(txn);
        if (!dups) {
            byte[] found = view.get(tree, keys.encode(key));
            return found == null ? null : decodeValue(found);
        }
        byte[] from = lower(key);
        byte[] to = upper(key);
        try (Cursor c = view.cursor(tree)) {
            if (!c.seek(from) || (to != null && compareKey(c, to) >= 0)) {
                return null;
            }
            return pairs.decode(c.key(), 0, c.keyLength()).second();
        }
    }

    private static int compareKey(Cursor c, byte[] key) {
        return Arrays.compareUnsigned(c.keyBytes(), key);
    }

    @Override
    public void put(PartitionTxn txn, K key, V value) throws LdapException {
        if (key == null || value == null) {
            return;
        }
        WriteTxn w = writer(txn);
        if (dups) {
            w.put(tree, checked(pair(key, value)), EMPTY);
        } else {
            w.put(tree, checked(keys.encode(key)), stored(key, value));
        }
    }

    @Override
    public void remove(PartitionTxn txn, K key) {
        if (key == null) {
            return;
        }
        WriteTxn w = writer(txn);
        if (!dups) {
            w.delete(tree, keys.encode(key));
            return;
        }
        byte[] to = upper(key);
        if (to != null) {
            w.deleteRange(tree, lower(key), to);
        } else {
            try (TreeRangeCursor<Tuple<K, V>> c = cursor(txn, key)) {
                while (c.next()) {
                    w.delete(tree, pair(key, c.get().getValue()));
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public void remove(PartitionTxn txn, K key, V value) {
        if (key == null || value == null) {
            return;
        }
        WriteTxn w = writer(txn);
        if (dups) {
            w.delete(tree, pair(key, value));
        } else if (has(txn, key, value)) {
            w.delete(tree, keys.encode(key));
        }
    }

    // ---- cursors

    private final TreeRangeCursor.Mapping<Tuple<K, V>> tuples = new TreeRangeCursor.Mapping<>() {
        @Override
        public Tuple<K, V> decode(Cursor at) {
            return MvbtTable.this.decode(at);
        }

        @Override
        public byte[] lowerBound(Tuple<K, V> t) {
            return dups && t.getValue() != null ? pair(t.getKey(), t.getValue()) : lower(t.getKey());
        }

        @Override
        public byte[] upperBound(Tuple<K, V> t) {
            return dups && t.getValue() != null ? successor(pair(t.getKey(), t.getValue())) : upper(t.getKey());
        }
    };

    /** Every tuple, read on the transaction of the operation running on this thread. */
    @Override
    public TreeRangeCursor<Tuple<K, V>> cursor() {
        return new TreeRangeCursor<>(own(null), tree, null, null, tuples);
    }

    /** Every tuple, read on {@code txn}. */
    TreeRangeCursor<Tuple<K, V>> cursor(PartitionTxn txn) {
        return new TreeRangeCursor<>(own(txn), tree, null, null, tuples);
    }

    @Override
    public TreeRangeCursor<Tuple<K, V>> cursor(PartitionTxn txn, K key) {
        return new TreeRangeCursor<>(own(txn), tree, lower(key), upper(key), tuples);
    }

    @Override
    public TreeRangeCursor<V> valueCursor(PartitionTxn txn, K key) {
        TreeRangeCursor.Mapping<V> mapping = new TreeRangeCursor.Mapping<>() {
            @Override
            public V decode(Cursor at) {
                return MvbtTable.this.decode(at).getValue();
            }

            @Override
            public byte[] lowerBound(V value) {
                return dups ? pair(key, value) : lower(key);
            }

            @Override
            public byte[] upperBound(V value) {
                return dups ? successor(pair(key, value)) : upper(key);
            }
        };
        return new TreeRangeCursor<>(own(txn), tree, lower(key), upper(key), mapping);
    }

    // ---- counts

    @Override
    public long count(PartitionTxn txn) {
        return view(txn).count(tree);
    }

    @Override
    public long count(PartitionTxn txn, K key) {
        if (key == null) {
            return 0;
        }
        ReadView view = view(txn);
        return dups ? countRange(view, lower(key), upper(key)) : view.contains(tree, keys.encode(key)) ? 1 : 0;
    }

    /**
     * Entries with keys at or above {@code key}. ApacheDS's optimizer takes these counts as scan
     * sizes and gives up on a filter whose count is 0, so a table with entries never says 0: the
     * value it asks with is the filter's, which need not be in the index's form.
     */
    @Override
    public long greaterThanCount(PartitionTxn txn, K key) {
        ReadView view = view(txn);
        long n = countRange(view, lower(key), null);
        return n == 0 && view.count(tree) > 0 ? 1 : n;
    }

    /** Entries with keys at or below {@code key}, never 0 for a table with entries (see above). */
    @Override
    public long lessThanCount(PartitionTxn txn, K key) {
        ReadView view = view(txn);
        byte[] to = upper(key);
        long n = to == null ? view.count(tree) : view.rank(tree, to, false);
        return n == 0 && view.count(tree) > 0 ? 1 : n;
    }

    @Override
    public void close(PartitionTxn txn) {
        // the store is closed by the partition
    }
}
