// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.io.IOException;
import java.net.URI;
import java.util.function.UnaryOperator;
import org.apache.directory.api.ldap.model.cursor.Cursor;
import org.apache.directory.api.ldap.model.cursor.CursorException;
import org.apache.directory.api.ldap.model.cursor.EmptyCursor;
import org.apache.directory.api.ldap.model.cursor.Tuple;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.api.ldap.model.exception.LdapOtherException;
import org.apache.directory.server.core.api.partition.PartitionTxn;
import org.apache.directory.server.core.partition.impl.btree.IndexCursorAdaptor;
import org.apache.directory.server.xdbm.AbstractIndex;
import org.apache.directory.server.xdbm.IndexEntry;

/**
 * An attribute index of an mvbt partition: a forward table (value to entry ids, duplicates) and,
 * where ApacheDS asks for one, a reverse table (entry id to values), in two trees of the
 * partition's store, changed in the transaction of the entry they index.
 */
class MvbtIndex<K> extends AbstractIndex<K, String> {
    private MvbtTable<K, String> forward;
    private MvbtTable<String, K> reverse;
    private UnaryOperator<K> storedForm;

    /** An index ApacheDS configured; {@link MvbtPartition} gives it its tables. */
    MvbtIndex(String attributeId, boolean withReverse) {
        super(attributeId, withReverse);
    }

    /**
     * {@code storedForm} puts a value ApacheDS orders by (range counts, cursor positions) in the
     * form the forward table holds values in ({@link IndexedForm}).
     */
    final void init(org.apache.directory.api.ldap.model.schema.AttributeType type, MvbtTable<K, String> forward,
            MvbtTable<String, K> reverse, UnaryOperator<K> storedForm) {
        this.attributeType = type;
        this.forward = forward;
        this.reverse = withReverse ? reverse : null;
        this.storedForm = storedForm;
        this.initialized = true;
    }

    @Override
    public void setWkDirPath(URI wkDirPath) {
        // the index lives in the partition's store
    }

    @Override
    public URI getWkDirPath() {
        return null;
    }

    @Override
    public long count(PartitionTxn txn) {
        return forward.count(txn);
    }

    @Override
    public long count(PartitionTxn txn, K value) {
        return forward.count(txn, value);
    }

    @Override
    public long greaterThanCount(PartitionTxn txn, K value) {
        return forward.greaterThanCount(txn, storedForm.apply(value));
    }

    @Override
    public long lessThanCount(PartitionTxn txn, K value) {
        return forward.lessThanCount(txn, storedForm.apply(value));
    }

    @Override
    public String forwardLookup(PartitionTxn txn, K value) {
        return forward.get(txn, value);
    }

    @Override
    public K reverseLookup(PartitionTxn txn, String id) {
        return reverse == null ? null : reverse.get(txn, id);
    }

    @Override
    public void add(PartitionTxn txn, K value, String id) throws LdapException {
        forward.put(txn, value, id);
        if (reverse != null) {
            reverse.put(txn, id, value);
        }
    }

    @Override
    public void drop(PartitionTxn txn, String id) throws LdapException {
        if (reverse == null) {
            return;
        }
        try (Cursor<Tuple<String, K>> values = reverse.cursor(txn, id)) {
            while (values.next()) {
                forward.remove(txn, values.get().getValue(), id);
            }
        } catch (IOException | CursorException e) {
            throw new LdapOtherException(e.getMessage(), e);
        }
        reverse.remove(txn, id);
    }

    @Override
    public void drop(PartitionTxn txn, K value, String id) {
        forward.remove(txn, value, id);
        if (reverse != null) {
            reverse.remove(txn, id, value);
        }
    }

    @Override
    public Cursor<IndexEntry<K, String>> forwardCursor(PartitionTxn txn) {
        return new ValuePositionedCursor<>(txn, forward.cursor(txn), storedForm);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Cursor<IndexEntry<K, String>> forwardCursor(PartitionTxn txn, K value) {
        return new IndexCursorAdaptor(txn, (Cursor) forward.cursor(txn, value), true);
    }

    @Override
    public Cursor<K> reverseValueCursor(PartitionTxn txn, String id) {
        return reverse == null ? new EmptyCursor<>() : reverse.valueCursor(txn, id);
    }

    @Override
    public Cursor<String> forwardValueCursor(PartitionTxn txn, K value) {
        return forward.valueCursor(txn, value);
    }

    @Override
    public boolean forward(PartitionTxn txn, K value) {
        return forward.has(txn, value);
    }

    @Override
    public boolean forward(PartitionTxn txn, K value, String id) {
        return forward.has(txn, value, id);
    }

    @Override
    public boolean reverse(PartitionTxn txn, String id) {
        return reverse != null && reverse.has(txn, id);
    }

    @Override
    public boolean reverse(PartitionTxn txn, String id, K value) {
        return reverse != null && reverse.has(txn, id, value);
    }

    @Override
    public void close(PartitionTxn txn) {
        // the store is closed by the partition
    }

    @Override
    public boolean isDupsEnabled() {
        return reverse != null && reverse.isDupsEnabled();
    }

    @Override
    public String toString() {
        return "MvbtIndex<" + attributeId + ">";
    }
}
