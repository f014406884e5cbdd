// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** A consistent, compact copy of the newest revision (Store.copyTo). */
@Command(name = "copy", mixinStandardHelpOptions = true,
        description = "Copy the newest revision into a new store file: consistent, compact (full pages, no free "
                + "space), any page size. Named revisions are not copied: the copy holds the newest revision alone.")
final class CopyCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Parameters(index = "1", paramLabel = "TARGET", description = "The new store file (must not exist).")
    Path target;

    @Option(names = "--page-size", description = "Page size of the copy (default: the store's).")
    Integer pageSize;

    @Override
    public Integer call() {
        StoreFiles.requireAbsent(target);
        try (Store s = StoreFiles.openExisting(store)) {
            long total;
            try (Snapshot snapshot = s.beginRead()) {
                total = StoreFiles.totalEntries(s, snapshot);
            }
            int size = pageSize != null ? pageSize : s.stats().pageSize();
            long started = System.nanoTime();
            long[] copied = new long[1];
            try (Progress progress = new Progress("copy", total)) {
                s.copyTo(target, StoreOptions.defaults().pageSize(size), n -> {
                    copied[0] = n;
                    progress.update(n);
                });
                progress.finish(copied[0]);
            }
            System.out.printf("copied %s to %s in %,d ms%n", Plural.entries(copied[0]), target,
                    (System.nanoTime() - started) / 1_000_000);
            int named = s.namedRevisions().size();
            if (named > 0) {
                System.err.printf("note: %s holds %,d named revision%s; the copy holds none of them (only the newest"
                        + " revision is copied)%n", store, named, named == 1 ? "" : "s");
            }
        }
        return ExitCodes.OK;
    }
}
