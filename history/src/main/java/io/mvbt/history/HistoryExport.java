// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Exports a history table as an INN hisv6 text history ({@link HisV6Format}), one line per entry
 * in hash order, from one snapshot: writers go on meanwhile and are not seen. A file INN wrote,
 * sorted by hash, comes back byte for byte from import then export.
 */
public final class HistoryExport {
    private HistoryExport() {
    }

    /** Writes every entry to {@code file} (created or truncated); returns the number of lines. */
    public static long run(HistoryTable table, Path file) {
        try (OutputStream out = Files.newOutputStream(file)) {
            return run(table, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Writes every entry to {@code out} (flushed, not closed); returns the number of lines. */
    public static long run(HistoryTable table, OutputStream out) {
        Writer writer = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.US_ASCII), 1 << 16);
        long lines = table.walk(e -> {
            try {
                writer.write(HisV6Format.format(e));
            } catch (IOException x) {
                throw new UncheckedIOException("cannot write the history", x);
            }
            return true;
        });
        try {
            writer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history", e);
        }
        return lines;
    }
}
