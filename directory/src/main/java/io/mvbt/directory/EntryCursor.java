// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import io.mvbt.cursor.CandidateCursor;

/**
 * Walks a search's result in entry-id order, both ways, on the search's snapshot: the virtual list
 * view of LDAP (position, count, seek to an offset) over {@link CandidateCursor}, with each entry
 * decoded and its DN rebuilt on the same snapshot. Not thread-safe.
 */
public final class EntryCursor implements AutoCloseable {
    private final CandidateCursor cursor;
    private final DirectoryTrees.DnResolver dns;

    EntryCursor(CandidateCursor cursor, DirectoryTrees.DnResolver dns) {
        this.cursor = cursor;
        this.dns = dns;
    }

    public boolean first() {
        return cursor.first();
    }

    public boolean last() {
        return cursor.last();
    }

    public boolean next() {
        return cursor.next();
    }

    public boolean prev() {
        return cursor.prev();
    }

    /** To the first entry whose id is {@code >= id}. */
    public boolean seek(long id) {
        return cursor.seek(id);
    }

    public boolean seekPosition(long position) {
        return cursor.seekPosition(position);
    }

    public boolean skip(long n) {
        return cursor.skip(n);
    }

    public long position() {
        return cursor.position();
    }

    public long count() {
        return cursor.count();
    }

    public long id() {
        return cursor.id();
    }

    /** The current entry, as it was at the search's revision. */
    public Entry entry() {
        return dns.entry(cursor.entry());
    }

    @Override
    public void close() {
        cursor.close();
    }
}
