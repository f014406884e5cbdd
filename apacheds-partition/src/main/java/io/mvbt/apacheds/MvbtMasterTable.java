// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.Codecs;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import java.util.UUID;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.schema.SchemaManager;
import org.apache.directory.server.xdbm.MasterTable;

/** The master table: entry id (the entry's UUID) to the entry. */
final class MvbtMasterTable extends MvbtTable<String, Entry> implements MasterTable {
    MvbtMasterTable(Store store, Tree tree, SchemaManager schema) {
        super(store, tree, Codecs.STRING, EntryCodecs.entries(schema), false, String::compareTo, null);
    }

    @Override
    public String getNextId(Entry entry) {
        return UUID.randomUUID().toString();
    }
}
