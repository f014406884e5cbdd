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
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Writes the newest revision, or a tree or a range of it, in the portable format or decoded. */
@Command(name = "dump", mixinStandardHelpOptions = true,
        description = {"Write the trees of the newest revision: as portable hex text that mvbt load reads back"
                + " (docs/dump-format.md), or decoded, as text or JSON lines.",
            "--tree, --from and --to narrow it to a tree and a range of keys."})
final class DumpCommand implements Callable<Integer> {
    /** The dump's forms. */
    enum Format {
        HEX, TEXT, JSON;

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write here instead of standard output.")
    Path output;

    @Option(names = "--tree", paramLabel = "TREE", description = "Only this tree (default: every tree).")
    String tree;

    @Option(names = "--from", paramLabel = "KEY", description = "Only keys from KEY on (inclusive), as --key-codec reads it.")
    String from;

    @Option(names = "--to", paramLabel = "KEY", description = "Only keys below KEY (exclusive), as --key-codec reads it.")
    String to;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "${COMPLETION-CANDIDATES}: hex is the portable format, loadable (default: ${DEFAULT-VALUE});"
                    + " text is key<TAB>value per line, json one object per line, both decoded with the codecs.")
    Format format = Format.HEX;

    @Mixin
    CodecOptions codecs;

    @Override
    public Integer call() throws IOException {
        DumpSelection selection = new DumpSelection(tree, from == null ? null : codecs.key.parse(from, "--from"),
                to == null ? null : codecs.key.parse(to, "--to"));
        try (Store s = StoreFiles.openExisting(store); Snapshot snapshot = s.beginRead()) {
            long total = StoreFiles.totalEntries(s, snapshot);
            // A tree that is not there fails before an output file is made.
            selection.trees(s, snapshot);
            if (output != null) {
                StoreFiles.requireAbsent(output);
            }
            // The portable format is ASCII by definition; decoded strings may be anything.
            Writer out = output == null
                    ? new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16)
                    : Files.newBufferedWriter(output, StandardCharsets.UTF_8);
            try (Progress progress = new Progress("dump", total)) {
                long written = format == Format.HEX ? DumpFormat.write(s, snapshot, selection, out, progress::update)
                        : EntryLines.write(s, snapshot, selection, codecs, format == Format.JSON, out, progress::update);
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
