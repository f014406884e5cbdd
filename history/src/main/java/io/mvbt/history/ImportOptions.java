// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * How {@link HistoryImport} reads a text history. Immutable: each setter returns a new instance.
 *
 * <ul>
 * <li>{@code skipMalformed}: count and skip lines that do not parse, instead of failing on the first
 * (default false).</li>
 * <li>{@code replaceExisting}: replace what the table holds (in the same transaction, so readers
 * see the old table until the import commits) instead of refusing a table that is not empty
 * (default false).</li>
 * <li>{@code runEntries}: entries sorted in memory at a time; a longer file is sorted in runs kept
 * in temporary files under {@code tempDir} and merged (default 1,000,000, about 100 MB of heap).</li>
 * <li>{@code fill}: how full the bulk loader fills pages, 0 to 1 (default 1: smallest file).</li>
 * <li>{@code progress}: called with the number of lines read, every 100,000 lines.</li>
 * </ul>
 */
public final class ImportOptions {
    private final boolean skipMalformed;
    private final boolean replaceExisting;
    private final int runEntries;
    private final Path tempDir;
    private final double fill;
    private final LongConsumer progress;

    private ImportOptions(boolean skipMalformed, boolean replaceExisting, int runEntries, Path tempDir, double fill,
            LongConsumer progress) {
        this.skipMalformed = skipMalformed;
        this.replaceExisting = replaceExisting;
        this.runEntries = runEntries;
        this.tempDir = tempDir;
        this.fill = fill;
        this.progress = progress;
    }

    public static ImportOptions defaults() {
        return new ImportOptions(false, false, 1_000_000, Path.of(System.getProperty("java.io.tmpdir")), 1.0,
                lines -> { });
    }

    public ImportOptions skipMalformed(boolean skip) {
        return new ImportOptions(skip, replaceExisting, runEntries, tempDir, fill, progress);
    }

    public ImportOptions replaceExisting(boolean replace) {
        return new ImportOptions(skipMalformed, replace, runEntries, tempDir, fill, progress);
    }

    public ImportOptions runEntries(int entries) {
        if (entries < 1) {
            throw new IllegalArgumentException("runs of " + entries + " entries");
        }
        return new ImportOptions(skipMalformed, replaceExisting, entries, tempDir, fill, progress);
    }

    public ImportOptions tempDir(Path dir) {
        if (dir == null) {
            throw new IllegalArgumentException("temporary directory is null");
        }
        return new ImportOptions(skipMalformed, replaceExisting, runEntries, dir, fill, progress);
    }

    public ImportOptions fill(double fill) {
        if (!(fill > 0 && fill <= 1)) {
            throw new IllegalArgumentException("fill factor " + fill + " is not in (0, 1]");
        }
        return new ImportOptions(skipMalformed, replaceExisting, runEntries, tempDir, fill, progress);
    }

    public ImportOptions progress(LongConsumer progress) {
        if (progress == null) {
            throw new IllegalArgumentException("progress is null");
        }
        return new ImportOptions(skipMalformed, replaceExisting, runEntries, tempDir, fill, progress);
    }

    public boolean skipMalformed() {
        return skipMalformed;
    }

    public boolean replaceExisting() {
        return replaceExisting;
    }

    public int runEntries() {
        return runEntries;
    }

    public Path tempDir() {
        return tempDir;
    }

    public double fill() {
        return fill;
    }

    public LongConsumer progress() {
        return progress;
    }
}
