// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import org.apache.directory.api.ldap.model.cursor.ClosureMonitor;
import org.apache.directory.api.ldap.model.cursor.CursorException;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.server.core.api.filtering.EntryFilter;
import org.apache.directory.server.core.api.filtering.EntryFilteringCursor;
import org.apache.directory.server.core.api.interceptor.context.SearchOperationContext;

/**
 * The cursor of a search's results, holding the search's snapshot until it is closed. ApacheDS
 * gathers the candidate ids first and fetches each entry as the LDAP handler reads the cursor,
 * after the operation's transaction was closed: the entries must come from the same snapshot.
 */
final class SnapshotSearchCursor implements EntryFilteringCursor {
    private final EntryFilteringCursor results;
    private final PartitionView snapshot;
    private boolean released;

    SnapshotSearchCursor(EntryFilteringCursor results, PartitionView snapshot) {
        snapshot.retain();
        this.results = results;
        this.snapshot = snapshot;
    }

    private synchronized void release() {
        if (!released) {
            released = true;
            snapshot.release();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            results.close();
        } finally {
            release();
        }
    }

    @Override
    public void close(Exception reason) throws IOException {
        try {
            results.close(reason);
        } finally {
            release();
        }
    }

    @Override
    public boolean addEntryFilter(EntryFilter filter) {
        return results.addEntryFilter(filter);
    }

    @Override
    public List<EntryFilter> getEntryFilters() {
        return results.getEntryFilters();
    }

    @Override
    public SearchOperationContext getOperationContext() {
        return results.getOperationContext();
    }

    @Override
    public boolean available() {
        return results.available();
    }

    @Override
    public void before(Entry element) throws LdapException, CursorException {
        results.before(element);
    }

    @Override
    public void after(Entry element) throws LdapException, CursorException {
        results.after(element);
    }

    @Override
    public void beforeFirst() throws LdapException, CursorException {
        results.beforeFirst();
    }

    @Override
    public void afterLast() throws LdapException, CursorException {
        results.afterLast();
    }

    @Override
    public boolean first() throws LdapException, CursorException {
        return results.first();
    }

    @Override
    public boolean isFirst() {
        return results.isFirst();
    }

    @Override
    public boolean isBeforeFirst() {
        return results.isBeforeFirst();
    }

    @Override
    public boolean last() throws LdapException, CursorException {
        return results.last();
    }

    @Override
    public boolean isLast() {
        return results.isLast();
    }

    @Override
    public boolean isAfterLast() {
        return results.isAfterLast();
    }

    @Override
    public boolean isClosed() {
        return results.isClosed();
    }

    @Override
    public boolean previous() throws LdapException, CursorException {
        return results.previous();
    }

    @Override
    public boolean next() throws LdapException, CursorException {
        return results.next();
    }

    @Override
    public Entry get() throws CursorException {
        return results.get();
    }

    @Override
    public void setClosureMonitor(ClosureMonitor monitor) {
        results.setClosureMonitor(monitor);
    }

    @Override
    public String toString(String tabs) {
        return results.toString(tabs);
    }

    @Override
    public Iterator<Entry> iterator() {
        return results.iterator();
    }
}
