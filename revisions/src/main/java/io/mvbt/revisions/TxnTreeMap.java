// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * {@link TypedTree#asMap(WriteTxn)}: the map view of a tree in a write transaction, whose changes go
 * through the transaction (see {@link TreeMapView} for how each is made).
 */
final class TxnTreeMap<K, V> extends TreeMapView<K, V> {
    private final WriteTxn tx;

    TxnTreeMap(WriteTxn tx, TypedTree<K, V> typed, byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive,
            boolean descending) {
        super(tx, typed, lo, loInclusive, hi, hiInclusive, descending);
        this.tx = tx;
    }

    @Override
    WriteTxn txn() {
        return tx;
    }

    @Override
    TreeMapView<K, V> narrowed(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, boolean descending) {
        return new TxnTreeMap<>(tx, typed, lo, loInclusive, hi, hiInclusive, descending);
    }
}
