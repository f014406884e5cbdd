// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.nio.file.Path;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options every harness of the bench jar takes (the comparison and the directory benchmark), as
 * a picocli mixin, and the one way they read a command line.
 */
public final class HarnessOptions {
    @Option(names = "--dir", paramLabel = "PATH", description = "where the stores' files go (default the temp dir)")
    public Path dir = Path.of(System.getProperty("java.io.tmpdir"));

    @Option(names = "--out", paramLabel = "PATH", description = "where the reports, CSV and SVG go (default ./bench-results)")
    public Path out = Path.of("bench-results");

    @Option(names = "--heap", paramLabel = "SIZE", description = "-Xmx of each child JVM (default 4g)")
    public String heap = "4g";

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
    public boolean help;

    /**
     * Reads {@code args} into {@code command}, whose {@code harness} mixin is this; a wrong command
     * line throws {@link IllegalArgumentException} with picocli's message, {@code --help} one with an
     * empty message.
     */
    public void parse(Object command, String[] args) {
        try {
            new CommandLine(command).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (help) {
            throw new IllegalArgumentException("");
        }
    }
}
