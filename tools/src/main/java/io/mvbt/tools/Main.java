// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine;

import io.mvbt.CorruptionException;
import io.mvbt.NotAStoreException;
import io.mvbt.ShadowDirectoryMissingException;
import io.mvbt.StoreLockedException;
import io.mvbt.UnsupportedFormatException;

/**
 * The {@code mvbt} command-line program. Every failure ends in one of the {@link ExitCodes}; with
 * {@code --json} it is also one JSON object on standard output ({@code {"error": ..., "status": ...,
 * "kind": ..., "command": ...}}), so that a script reading standard output always gets JSON.
 */
@Command(name = "mvbt", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A multi-version copy-on-write B+tree store.",
        subcommands = {DemoCommand.class, StatCommand.class, LsCommand.class, GetCommand.class, CheckCommand.class,
            DumpCommand.class, LoadCommand.class, CopyCommand.class, CompactCommand.class, RecoverCommand.class,
            BackupCommand.class, RestoreCommand.class, ChangesCommand.class, ReplicateCommand.class,
            ReadersCommand.class, HistoryCommand.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {ExitCodes.OK + ":done; for check: the store is clean",
            ExitCodes.DAMAGED + ":the store is damaged (check found problems, or a read met a damaged page)",
            ExitCodes.USAGE + ":the command line is wrong (mvbt without a command too)",
            ExitCodes.FAILED + ":anything else failed (I/O error, malformed dump, output not written)",
            ExitCodes.CANNOT_OPEN + ":cannot open the store (no such file, not an mvbt store, locked, no permission)",
            ExitCodes.NOT_FOUND + ":not found (get: the tree or key; history lookup: the Message-ID; changes: the revision)"})
public final class Main implements Callable<Integer> {
    @Option(names = "--shadow-dir", paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = "The shadow directory of the store's writer (StoreOptions.shadowDirectory), if it has one.")
    Path shadowDirectory;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit status (see {@link ExitCodes}). */
    static int run(String... args) {
        // Before parsing: a command line that does not parse asked for JSON all the same.
        boolean json = Arrays.asList(args).contains("--json");
        Main main = new Main();
        CommandLine cli = new CommandLine(main).setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionStrategy(parsed -> {
            StoreFiles.shadowDirectory = main.shadowDirectory;
            return new CommandLine.RunLast().execute(parsed);
        });
        CommandLine.IParameterExceptionHandler standard = cli.getParameterExceptionHandler();
        cli.setParameterExceptionHandler((e, unmatched) -> {
            standard.handleParseException(e, unmatched);
            if (json) {
                printJsonError(System.out, e.getCommandLine().getCommandName(), ExitCodes.USAGE, e.getMessage());
            }
            return ExitCodes.USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            int status = statusOf(e);
            String message = describe(e);
            commandLine.getErr().println("mvbt " + commandLine.getCommandName() + ": " + message);
            if (json) {
                printJsonError(System.out, commandLine.getCommandName(), status, message);
            }
            return status;
        });
        return cli.execute(args);
    }

    /** The exit status of a command that threw {@code e}. */
    static int statusOf(Exception e) {
        if (e instanceof CommandException c) {
            return c.exitCode();
        }
        if (e instanceof CorruptionException) {
            return ExitCodes.DAMAGED;
        }
        if (e instanceof NotAStoreException || e instanceof StoreLockedException || e instanceof ShadowDirectoryMissingException
                || e instanceof UnsupportedFormatException) {
            return ExitCodes.CANNOT_OPEN;
        }
        return ExitCodes.FAILED;
    }

    private static void printJsonError(PrintStream out, String command, int status, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("error", message);
        error.put("status", status);
        error.put("kind", ExitCodes.name(status));
        error.put("command", command);
        out.println(Json.write(error));
        out.flush();
    }

    private static String describe(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file: " + e.getMessage();
        }
        if (e instanceof ShadowDirectoryMissingException) {
            return e.getMessage() + "; mvbt takes it as --shadow-dir DIR";
        }
        if (e instanceof java.io.UncheckedIOException u) {
            return e.getMessage() + ": " + u.getCause().getMessage();
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    /** {@code mvbt} without a command: the usage, on standard error, and the usage status. */
    @Override
    public Integer call() {
        new CommandLine(this).usage(System.err);
        return ExitCodes.USAGE;
    }
}
