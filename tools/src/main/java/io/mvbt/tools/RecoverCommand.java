// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Saves what a damaged store still holds: the newest revision whose pages verify, read without
 * writing a byte to the store, copied into a new store whose free space is rebuilt from what it
 * holds. For a damaged free map (which keeps the store from opening for writing) or newest
 * commits that do not verify.
 */
@Command(name = "recover", mixinStandardHelpOptions = true,
        description = {"Copy the newest revision of STORE whose pages verify into a new store TARGET, with its free"
                + " space rebuilt; STORE is not written to.",
            "For a store whose free map is damaged, or whose newest commits do not verify."})
final class RecoverCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The damaged store file.")
    Path store;

    @Parameters(index = "1", paramLabel = "TARGET", description = "The new store file (must not exist).")
    Path target;

    @Override
    public Integer call() {
        StoreFiles.requireAbsent(target);
        long started = System.nanoTime();
        try (Store s = StoreFiles.openReadOnly(store)) {
            s.droppedRevisions().forEach(d -> System.out.println("dropped: " + d));
            long revision;
            long total;
            try (Snapshot snapshot = s.beginRead()) {
                revision = snapshot.revision();
                total = StoreFiles.totalEntries(s, snapshot);
            }
            long[] copied = new long[1];
            try (Progress progress = new Progress("recover", total)) {
                s.copyTo(target, StoreOptions.defaults().pageSize(s.stats().pageSize()), n -> {
                    copied[0] = n;
                    progress.update(n);
                });
                progress.finish(copied[0]);
            }
            System.out.printf("recovered revision %,d: %s copied to %s in %,d ms%n", revision, Plural.entries(copied[0]),
                    target, (System.nanoTime() - started) / 1_000_000);
        }
        return ExitCodes.OK;
    }
}
