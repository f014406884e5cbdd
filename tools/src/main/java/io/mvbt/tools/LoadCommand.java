// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;

import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Builds a new store from a dump; nothing appears under the target name unless all of it loaded. */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Create a new store from a dump (docs/dump-format.md), with any page size.")
final class LoadCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DUMP", description = "The dump file, or - for standard input.")
    String dump;

    @Parameters(index = "1", paramLabel = "STORE", description = "The new store file (must not exist).")
    Path store;

    @Option(names = "--page-size", description = "Page size of the new store (default: ${DEFAULT-VALUE}).")
    int pageSize = 4096;

    @Override
    public Integer call() throws IOException {
        StoreFiles.requireAbsent(store);
        Path partial = store.resolveSibling(store.getFileName() + ".partial");
        Files.deleteIfExists(partial);
        BufferedReader in = dump.equals("-")
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII), 1 << 16)
                : Files.newBufferedReader(Path.of(dump), StandardCharsets.US_ASCII);
        long loaded;
        boolean done = false;
        try (in; Progress progress = new Progress("load", -1)) {
            try (Store s = Store.open(partial, StoreOptions.defaults().pageSize(pageSize)
                    .durability(Durability.NORMAL))) {
                loaded = DumpFormat.load(in, s, progress::update);
                s.sync();
                progress.finish(loaded);
            }
            Files.move(partial, store, StandardCopyOption.ATOMIC_MOVE);
            done = true;
        } finally {
            Files.deleteIfExists(FilePageStore.lockPathOf(partial));
            if (!done) {
                Files.deleteIfExists(partial);
            }
        }
        System.out.printf("loaded %s into %s%n", Plural.entries(loaded), store);
        return ExitCodes.OK;
    }
}
