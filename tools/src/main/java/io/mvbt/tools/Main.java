package io.mvbt.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code mvbt} command-line program. */
@Command(name = "mvbt", mixinStandardHelpOptions = true, version = "mvbt 0.1.0",
        description = "A multi-version copy-on-write B+tree store.",
        subcommands = {DemoCommand.class, HistoryCommand.class})
public final class Main implements Runnable {
    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
