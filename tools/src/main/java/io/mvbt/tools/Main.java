// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine;

import io.mvbt.CorruptionException;

/** The {@code mvbt} command-line program. */
@Command(name = "mvbt", mixinStandardHelpOptions = true, version = "mvbt 0.1.0",
        description = "A multi-version copy-on-write B+tree store.",
        subcommands = {DemoCommand.class, StatCommand.class, CheckCommand.class, DumpCommand.class,
            LoadCommand.class, CopyCommand.class, CompactCommand.class, RecoverCommand.class, ReadersCommand.class,
            HistoryCommand.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:done; for check: the store is clean", "1:the store is damaged; for history lookup: not found",
            "2:the command line is wrong", "3:anything else failed (missing or locked store, I/O, bad dump)"})
public final class Main implements Runnable {
    @Option(names = "--shadow-dir", paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = "The shadow directory of the store's writer (StoreOptions.shadowDirectory), if it has one.")
    Path shadowDirectory;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit status (see {@link ExitCodes}). */
    static int run(String... args) {
        Main main = new Main();
        CommandLine cli = new CommandLine(main);
        cli.setExecutionStrategy(parsed -> {
            StoreFiles.shadowDirectory = main.shadowDirectory;
            return new CommandLine.RunLast().execute(parsed);
        });
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            commandLine.getErr().println("mvbt " + commandLine.getCommandName() + ": " + describe(e));
            return e instanceof CorruptionException ? ExitCodes.DAMAGED : ExitCodes.FAILED;
        });
        return cli.execute(args);
    }

    private static String describe(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file: " + e.getMessage();
        }
        if (e instanceof io.mvbt.ShadowDirectoryMissingException) {
            return e.getMessage() + "; mvbt takes it as --shadow-dir DIR";
        }
        if (e instanceof java.io.UncheckedIOException u) {
            return e.getMessage() + ": " + u.getCause().getMessage();
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
