// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.util.List;
import java.util.function.BiConsumer;
import java.util.Map;

import io.mvbt.directory.Dn;
import io.mvbt.directory.Entry;

/**
 * A store the directory benchmark runs against: mvbt's {@code Directory} or SQLite with the same
 * trees as tables. Searches return whole entries (DN and every attribute), as an LDAP server does.
 */
interface DirectoryTarget extends AutoCloseable {
    String id();

    /** How the store is set up, for the report. */
    String settings();

    /** Loads the entries, parents first (the store chooses its transactions). */
    void load(DirectoryData data, BiConsumer<Long, Entry> progress);

    /** Prepares {@code searches} for one searching thread. */
    Searcher searcher(List<DirectorySearch> searches);

    /** Adds one entry in a commit of its own. */
    void add(Entry entry);

    /** Deletes one leaf entry in a commit of its own. */
    void delete(Dn dn);

    /** How the store runs {@code search}: the printed plan. */
    String plan(DirectorySearch search);

    long bytesOnDisk();

    @Override
    void close();

    /** One thread's prepared searches. */
    interface Searcher extends AutoCloseable {
        /**
         * Runs search {@code index} and fetches every entry it returns; gives each to {@code sink}
         * (normalized-by-store DN string and attributes) when it is not null. Returns the count.
         */
        long search(int index, BiConsumer<String, Map<String, List<String>>> sink);

        @Override
        void close();
    }
}
