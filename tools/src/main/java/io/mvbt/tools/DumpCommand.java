// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Writes the newest revision in the portable text format. */
@Command(name = "dump", mixinStandardHelpOptions = true,
        description = "Write every tree of the newest revision as portable text (docs/dump-format.md).")
final class DumpCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write here instead of standard output.")
    Path output;

    @Override
    public Integer call() throws IOException {
        try (Store s = StoreFiles.openExisting(store); Snapshot snapshot = s.beginRead()) {
            long total = StoreFiles.totalEntries(s, snapshot);
            if (output != null) {
                StoreFiles.requireAbsent(output);
            }
            Writer out = output == null
                    ? new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII), 1 << 16)
                    : Files.newBufferedWriter(output, StandardCharsets.US_ASCII);
            try (Progress progress = new Progress("dump", total)) {
                long written = DumpFormat.write(s, snapshot, out, progress::update);
                progress.finish(written);
            } finally {
                if (output != null) {
                    out.close();
                } else {
                    out.flush();
                    StoreFiles.requireWritten(System.out);
                }
            }
        }
        return ExitCodes.OK;
    }

}
