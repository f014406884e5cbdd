// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.Callable;

import io.mvbt.history.ExpireOptions;
import io.mvbt.history.ExpireReport;
import io.mvbt.history.ExpiryPolicy;
import io.mvbt.history.HistoryCounts;
import io.mvbt.history.HistoryEntry;
import io.mvbt.history.HistoryExport;
import io.mvbt.history.HistoryImport;
import io.mvbt.history.HistoryReader;
import io.mvbt.history.HistoryTable;
import io.mvbt.history.ImportOptions;
import io.mvbt.history.ImportReport;
import io.mvbt.history.MessageIdHash;
import io.mvbt.revisions.CheckReport;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreStats;
import io.mvbt.revisions.TreeStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code mvbt history ...}: a news history table (INN's history) in a store file. */
@Command(name = "history", mixinStandardHelpOptions = true,
        description = "A Usenet news history table (INN's history API) in a store file.",
        subcommands = {HistoryCommand.Stat.class, HistoryCommand.Check.class, HistoryCommand.Lookup.class,
            HistoryCommand.Import.class, HistoryCommand.Export.class, HistoryCommand.Expire.class,
            HistoryBenchCommand.class})
final class HistoryCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** {@code mvbt history} without a subcommand: its usage, on standard error, and the usage status. */
    @Override
    public Integer call() {
        spec.commandLine().usage(System.err);
        return ExitCodes.USAGE;
    }

    /**
     * The store file every subcommand works on: the first argument, as every mvbt command takes it;
     * {@code -s FILE} is still taken (it was the only way once), and then the first argument is the
     * subcommand's own.
     */
    static final class StoreOption {
        @Parameters(index = "0", arity = "0..1", paramLabel = "STORE",
                description = "The store file holding the history (only import creates it if absent).")
        String first;

        @Option(names = {"-s", "--store"}, paramLabel = "FILE",
                description = "Deprecated: the same as STORE, which every mvbt command takes first.")
        Path option;

        @Option(names = "--table", paramLabel = "NAME", description = "Table name in the store (default: ${DEFAULT-VALUE}).")
        String table = HistoryTable.DEFAULT_NAME;

        /** The store, resolved by {@link #resolve}. */
        Path store;

        /** With {@code -s}, the first argument, which is then the subcommand's own; else null. */
        private String shifted;

        void resolve(CommandSpec spec) {
            if (option != null) {
                store = option;
                shifted = first;
            } else if (first != null) {
                store = Path.of(first);
            } else {
                throw new ParameterException(spec.commandLine(), "Missing required parameter: 'STORE'");
            }
        }

        /**
         * The subcommand's own argument {@code label}: the second argument, or the first with
         * {@code -s}; fails as a usage error if it is missing or comes twice.
         */
        String argument(CommandSpec spec, String second, String label) {
            if (shifted != null && second != null) {
                throw new ParameterException(spec.commandLine(), "Unmatched argument: '" + second + "'");
            }
            String value = shifted != null ? shifted : second;
            if (value == null) {
                throw new ParameterException(spec.commandLine(), "Missing required parameter: '" + label + "'");
            }
            return value;
        }

        /** Fails as a usage error if {@code -s} left the first argument to a subcommand that takes none. */
        void requireNoArgument(CommandSpec spec) {
            if (shifted != null) {
                throw new ParameterException(spec.commandLine(), "Unmatched argument: '" + shifted + "'");
            }
        }

        HistoryTable open(boolean create, boolean writes) {
            if (!create) {
                // A mistyped name must not leave a new empty store behind and answer "not found".
                StoreFiles.requireStore(store, "only 'history import' creates one");
            }
            // Commands that only read go on beside a running writer (innd), read-only.
            Store s = writes ? Store.open(store, StoreFiles.historyOptions())
                    : StoreFiles.openExisting(store);
            try {
                if (!create) {
                    try (Snapshot snapshot = s.beginRead()) {
                        if (!snapshot.hasTree(s.tree(table))) {
                            throw new CommandException(ExitCodes.NOT_FOUND, "no history table '" + table + "' in " + store
                                    + " (only 'history import' creates one)");
                        }
                    }
                }
                return HistoryTable.open(s, table, Durability.NORMAL);
            } catch (RuntimeException | Error e) {
                s.close();
                throw e;
            }
        }
    }

    /** Opens the table and closes its store afterwards. */
    abstract static class Sub implements Callable<Integer> {
        @Mixin
        StoreOption where;

        @Spec
        CommandSpec spec;

        final PrintStream out = System.out;

        @Override
        public Integer call() throws Exception {
            where.resolve(spec);
            resolveArguments();
            HistoryTable table = where.open(creates(), writes());
            try {
                return run(table);
            } finally {
                table.close();
                table.store().close();
            }
        }

        abstract int run(HistoryTable table) throws Exception;

        /** Takes the subcommand's own arguments (see {@link StoreOption#argument}); by default none. */
        void resolveArguments() {
            where.requireNoArgument(spec);
        }

        /** Whether the command may create the store (an import). */
        boolean creates() {
            return false;
        }

        /** Whether the command writes (an import, an expiry): it needs the writer lock. */
        boolean writes() {
            return creates();
        }
    }

    @Command(name = "stat", mixinStandardHelpOptions = true, description = "Entry counts, file size and tree shape.")
    static final class Stat extends Sub {
        @Override
        int run(HistoryTable table) throws Exception {
            HistoryCounts c = table.counts();
            out.printf("entries: %,d (%s, %,d remembered)%n", c.total(), Plural.of(c.articles(), "article"),
                    c.remembered());
            try (Snapshot s = table.store().beginRead()) {
                TreeStats t = s.treeStats(table.store().tree(table.name()));
                out.printf("tree '%s': depth %d, %,d leaf and %,d branch pages, leaves %.0f%% full%n", t.name(),
                        t.depth(), t.leafPages(), t.branchPages(), t.fill() * 100);
            }
            StoreStats st = table.store().stats();
            long size = Files.size(where.store);
            out.printf("store: revision %,d, %,d pages of %d bytes (%,d in use, %,d free); file %,d bytes", st.revision(),
                    st.pagesInFile(), st.pageSize(), st.pagesInUse(), st.pagesFree(), size);
            out.printf(c.total() > 0 ? " (%.1f bytes per entry)%n" : "%n", (double) size / Math.max(1, c.total()));
            return 0;
        }
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Check the store's integrity and decode every history entry.")
    static final class Check extends Sub {
        @Override
        int run(HistoryTable table) {
            long start = System.nanoTime();
            CheckReport report = table.store().check();
            out.printf("store: %s, %,d pages checked%n", report.ok() ? "clean" : report.problems(), report.pagesChecked());
            long[] kinds = new long[2];
            HistoryCounts counts;
            Progress progress = new Progress("walk");
            try (HistoryReader r = table.reader()) {
                counts = r.counts();
                r.walk(e -> {
                    kinds[e.isArticle() ? 0 : 1]++;
                    progress.update(kinds[0] + kinds[1], counts.total());
                    return true;
                });
            }
            progress.done();
            boolean countsOk = kinds[0] == counts.articles() && kinds[1] == counts.remembered();
            out.printf("history: %s and %,d remembered decoded; counts %s%n", Plural.of(kinds[0], "article"), kinds[1],
                    countsOk ? "agree" : "DISAGREE (recorded " + counts + ")");
            out.printf("checked in %.2f s%n", (System.nanoTime() - start) / 1e9);
            return report.ok() && countsOk ? 0 : 1;
        }
    }

    @Command(name = "lookup", mixinStandardHelpOptions = true,
            description = "Look a Message-ID (or with --hash its 32-hex-digit hash) up; exit status 5 if absent.")
    static final class Lookup extends Sub {
        @Parameters(index = "1", arity = "0..1", paramLabel = "MESSAGE-ID",
                description = "A Message-ID such as <id@example.com>, or a hash with --hash.")
        String key;

        @Override
        void resolveArguments() {
            key = where.argument(spec, key, "MESSAGE-ID");
        }

        @Option(names = "--hash", description = "The argument is a hash, not a Message-ID.")
        boolean hash;

        @Override
        int run(HistoryTable table) {
            byte[] h = hash ? MessageIdHash.fromText(key) : MessageIdHash.of(key);
            HistoryEntry e = table.entry(h);
            if (e == null) {
                out.printf("[%s] not found%n", MessageIdHash.toText(h));
                return ExitCodes.NOT_FOUND;
            }
            out.printf("[%s] %s%n", MessageIdHash.toText(h), e.isArticle() ? "article " + e.token().toText() : "remembered");
            out.printf("  arrived %s, posted %s, expires %s%n", time(e.arrived()), time(e.posted()), time(e.expires()));
            return 0;
        }

        private static String time(long t) {
            return t <= 0 ? "-" : t + " (" + Instant.ofEpochSecond(t) + ")";
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = "Import an INN hisv6 text history (all in one transaction).")
    static final class Import extends Sub {
        @Override
        boolean creates() {
            return true;
        }

        @Parameters(index = "1", arity = "0..1", paramLabel = "FILE", description = "The text history file.")
        String fileName;

        Path file;

        @Override
        void resolveArguments() {
            file = Path.of(where.argument(spec, fileName, "FILE"));
        }

        @Option(names = "--skip-malformed", description = "Skip and count lines that do not parse.")
        boolean skip;

        @Option(names = "--replace", description = "Replace a table that is not empty.")
        boolean replace;

        @Option(names = "--run-entries", description = "Entries sorted in memory per run (default: ${DEFAULT-VALUE}).")
        int runEntries = 1_000_000;

        @Option(names = "--temp-dir", description = "Where sorted runs go (default: the file's directory).")
        Path tempDir;

        @Override
        int run(HistoryTable table) throws Exception {
            long size = Files.size(file);
            Progress progress = new Progress("import: lines read");
            Path temp = tempDir != null ? tempDir : file.toAbsolutePath().getParent();
            ImportReport r = HistoryImport.run(table, file, ImportOptions.defaults().skipMalformed(skip)
                    .replaceExisting(replace).runEntries(runEntries).tempDir(temp)
                    .progress(lines -> progress.update(lines, size / 90)));
            progress.done();
            out.printf("imported %s: %s, %,d remembered, %s skipped, %,d malformed skipped (%s) in %.2f s%n",
                    Plural.of(r.lines(), "line"), Plural.of(r.articles(), "article"), r.remembered(),
                    Plural.of(r.duplicates(), "duplicate"), r.malformed(), Plural.of(r.runs(), "sorted run"),
                    r.elapsed().toNanos() / 1e9);
            return 0;
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Export as an INN hisv6 text history, in hash order.")
    static final class Export extends Sub {
        @Parameters(index = "1", arity = "0..1", paramLabel = "FILE", description = "The file to write, or - for standard output.")
        String file;

        @Override
        void resolveArguments() {
            file = where.argument(spec, file, "FILE");
        }

        @Override
        int run(HistoryTable table) {
            if (file.equals("-")) {
                HistoryExport.run(table, System.out);
                StoreFiles.requireWritten(System.out);
                return 0;
            }
            StoreFiles.requireAbsent(Path.of(file));
            long start = System.nanoTime();
            long lines = HistoryExport.run(table, Path.of(file));
            out.printf("exported %s in %.2f s%n", Plural.of(lines, "line"), (System.nanoTime() - start) / 1e9);
            return 0;
        }
    }

    @Command(name = "expire", mixinStandardHelpOptions = true,
            description = "Expire in place: articles past their retention become remembered, remembered entries "
                    + "past the remember horizon are deleted; writers and readers go on meanwhile.")
    static final class Expire extends Sub {
        @Override
        boolean writes() {
            return true;
        }

        @Option(names = "--retention", paramLabel = "DAYS",
                description = "Keep articles without an expiry time this long after arrival (default: ${DEFAULT-VALUE}).")
        double retention = 10;

        @Option(names = "--remember", paramLabel = "DAYS",
                description = "Keep remembered entries this long after posting (default: ${DEFAULT-VALUE}).")
        double remember = 11;

        @Option(names = "--page", description = "Entries per transaction (default: ${DEFAULT-VALUE}).")
        int page = 1_000;

        @Option(names = "--dry-run", description = "Change nothing; report what would change.")
        boolean dryRun;

        @Option(names = "--now", paramLabel = "SECONDS", description = "Expire as of this time (default: now).")
        Long now;

        @Override
        int run(HistoryTable table) {
            long total = table.counts().total();
            Progress progress = new Progress(dryRun ? "expire (dry run)" : "expire");
            ExpireOptions options = ExpireOptions.defaults().rememberDays(remember).pageSize(page).dryRun(dryRun)
                    .progress(p -> progress.update(p.examined(), total));
            if (now != null) {
                options = options.clock(Clock.fixed(Instant.ofEpochSecond(now), ZoneOffset.UTC));
            }
            ExpireReport r = table.expire(ExpiryPolicy.standard(retention), options);
            progress.done();
            out.printf("%s%,d entries examined: %,d articles kept (%,d rewritten), %,d to remembered, %,d deleted,"
                    + " %,d remembered kept; %,d transactions in %.2f s%n", r.dryRun() ? "dry run: " : "", r.examined(),
                    r.kept(), r.rewritten(), r.toRemembered(), r.deleted(), r.rememberedKept(), r.transactions(),
                    r.elapsed().toNanos() / 1e9);
            HistoryCounts c = table.counts();
            out.printf("entries now: %,d (%s, %,d remembered)%n", c.total(), Plural.of(c.articles(), "article"),
                    c.remembered());
            return 0;
        }
    }
}
