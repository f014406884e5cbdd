// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import io.mvbt.bench.Disk;
import io.mvbt.directory.Directory;
import io.mvbt.directory.Dn;
import io.mvbt.directory.Entry;
import io.mvbt.directory.EntryCursor;
import io.mvbt.directory.SearchResult;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;

/** mvbt's {@link Directory} on one store file, as the bench's other mvbt runs open it. */
final class MvbtDirectoryTarget implements DirectoryTarget {
    private final Path dir;
    private final Store store;
    private final Directory directory;

    MvbtDirectoryTarget(Path dir) {
        this.dir = dir;
        this.store = Store.open(dir.resolve("directory.mvbt"), options());
        this.directory = Directory.open(store, DirectoryData.SUFFIX, DirectoryData.schema());
    }

    /** 4 KiB pages, Durability.NORMAL: the counterpart of SQLite's WAL with synchronous=NORMAL. */
    private static StoreOptions options() {
        return StoreOptions.defaults().pageSize(4096).durability(Durability.NORMAL);
    }

    @Override
    public String id() {
        return "mvbt";
    }

    @Override
    public String settings() {
        StoreOptions o = options();
        return "Directory with the default schema + employeeNumber index; Durability.NORMAL (checkpoint every "
                + o.checkpointInterval().toSeconds() + " s or " + (o.checkpointBytes() >> 20)
                + " MiB), 4 KiB pages; load: one add per commit";
    }

    @Override
    public void load(DirectoryData data, BiConsumer<Long, Entry> progress) {
        long[] n = {0};
        data.forEach(e -> {
            directory.add(e);
            progress.accept(++n[0], e);
        });
    }

    @Override
    public Searcher searcher(List<DirectorySearch> searches) {
        return new Searcher() {
            @Override
            public long search(int index, BiConsumer<String, Map<String, List<String>>> sink) {
                DirectorySearch s = searches.get(index);
                long n = 0;
                try (SearchResult r = directory.search(s.base(), s.scope(), s.filter()); EntryCursor c = r.cursor()) {
                    while (c.next()) {
                        Entry e = c.entry();
                        n++;
                        if (sink != null) {
                            sink.accept(e.dn().normalized(directory.schema()), e.attributes());
                        }
                    }
                }
                return n;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void add(Entry entry) {
        directory.add(entry);
    }

    @Override
    public void delete(Dn dn) {
        directory.delete(dn);
    }

    @Override
    public String plan(DirectorySearch s) {
        try (SearchResult r = directory.search(s.base(), s.scope(), s.filter())) {
            return r.plan().toString();
        }
    }

    @Override
    public long bytesOnDisk() {
        return Disk.size(dir);
    }

    @Override
    public void close() {
        store.close();
    }
}
