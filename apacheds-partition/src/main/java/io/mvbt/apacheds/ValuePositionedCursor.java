// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.util.function.UnaryOperator;
import org.apache.directory.api.ldap.model.cursor.Cursor;
import org.apache.directory.api.ldap.model.cursor.CursorException;
import org.apache.directory.api.ldap.model.cursor.Tuple;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.server.core.api.partition.PartitionTxn;
import org.apache.directory.server.core.partition.impl.btree.IndexCursorAdaptor;
import org.apache.directory.server.xdbm.IndexEntry;

/**
 * A forward index cursor that ApacheDS may position ({@code before}, {@code after}) with a value
 * in the form a filter gave it: the value is put in the index's stored form first (see
 * {@link IndexedForm}).
 */
final class ValuePositionedCursor<K> extends IndexCursorAdaptor<K> {
    private final UnaryOperator<K> storedForm;

    @SuppressWarnings({"unchecked", "rawtypes"})
    ValuePositionedCursor(PartitionTxn txn, Cursor<? extends Tuple<K, String>> tuples, UnaryOperator<K> storedForm) {
        super(txn, (Cursor) tuples, true);
        this.storedForm = storedForm;
    }

    @Override
    public void before(IndexEntry<K, String> element) throws LdapException, CursorException {
        super.before(inStoredForm(element));
    }

    @Override
    public void after(IndexEntry<K, String> element) throws LdapException, CursorException {
        super.after(inStoredForm(element));
    }

    private IndexEntry<K, String> inStoredForm(IndexEntry<K, String> element) {
        IndexEntry<K, String> stored = new IndexEntry<>();
        stored.setKey(storedForm.apply(element.getKey()));
        stored.setId(element.getId());
        return stored;
    }
}
