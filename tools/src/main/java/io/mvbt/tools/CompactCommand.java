// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.mvbt.StoreLockedException;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Compaction in place: an open for writing and a close, which moves the pages in use down. */
@Command(name = "compact", mixinStandardHelpOptions = true,
        description = "Move the pages in use down and end the file at its last used page, in place (as a close"
                + " does when an eighth of the file and 1 MiB would go). Its writer must be closed; a snapshot open elsewhere"
                + " keeps the pages it sees where they are, and so do named revisions: pages only the newest revision"
                + " reaches move around them.")
final class CompactCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Override
    public Integer call() {
        try (Store look = StoreFiles.openReadOnly(store)) {
            if (!look.droppedRevisions().isEmpty()) {
                throw new CommandException("the newest revisions of " + store + " do not verify; "
                        + StoreFiles.DROPPED_ADVICE);
            }
        }
        long before = size();
        long started = System.nanoTime();
        StoreStats stats;
        int named;
        try (Store s = Store.open(store, StoreFiles.options().durability(Durability.NORMAL))) {
            stats = s.stats();
            named = s.namedRevisions().size();
        } catch (StoreLockedException e) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, e.getMessage() + "; close its writer first");
        }
        long after = size();
        if (named > 0) {
            System.err.printf("note: %s holds %,d named revision%s: the pages they reach stay where they are (release"
                    + " them to give those back)%n", store, named, named == 1 ? "" : "s");
        }
        System.out.printf("%s: %,d bytes before, %,d after (%,d pages of %,d bytes in use) in %,d ms%n", store,
                before, after, stats.pagesInUse(), stats.pageSize(), (System.nanoTime() - started) / 1_000_000);
        return ExitCodes.OK;
    }

    private long size() {
        try {
            return Files.size(store);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
