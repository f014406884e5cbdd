// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.mvbt.revisions.BulkLoad;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.WriteTxn;

/**
 * Imports an INN hisv6 text history ({@link HisV6Format}) into a history table: hashes, times and
 * remembered entries as they are in the file. The lines are parsed and sorted by hash first (in
 * runs on disk for a file larger than {@link ImportOptions#runEntries()}), then appended with the
 * sorted bulk loader in one transaction, committed durably: until then readers see the table as it
 * was, and a failure (a malformed line, a full disk) leaves it so.
 *
 * <p>Where a hash appears on several lines, the first line wins, as in dbz, which keeps the first
 * offset stored for a hash.
 */
public final class HistoryImport {
    private static final int PROGRESS_LINES = 100_000;

    private HistoryImport() {
    }

    /** Imports the text history in {@code file}. */
    public static ImportReport run(HistoryTable table, Path file, ImportOptions options) {
        try (InputStream in = Files.newInputStream(file)) {
            return run(table, in, options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Imports the text history read from {@code in} (not closed). */
    public static ImportReport run(HistoryTable table, InputStream in, ImportOptions options) {
        table.checkOpen();
        long start = System.nanoTime();
        long lines = 0;
        long malformed = 0;
        long[] loaded = new long[3]; // articles, remembered, duplicates
        try (SortedRuns runs = new SortedRuns(options.runEntries(), options.tempDir())) {
            LineReader reader = new LineReader(in);
            byte[] line;
            while ((line = reader.next()) != null) {
                lines++;
                try {
                    if (reader.length() > HisV6Format.MAX_LINE) {
                        throw new MalformedLineException(lines, "longer than " + HisV6Format.MAX_LINE + " bytes");
                    }
                    HistoryEntry e = HisV6Format.parse(line, reader.length(), lines);
                    runs.add(SortedRuns.rec(e.hashRef(), lines, EntryCodec.encode(e)));
                } catch (MalformedLineException e) {
                    if (!options.skipMalformed()) {
                        throw e;
                    }
                    malformed++;
                }
                if (lines % PROGRESS_LINES == 0) {
                    options.progress().accept(lines);
                }
            }
            options.progress().accept(lines);
            load(table, runs, options, loaded);
            return new ImportReport(lines, loaded[0], loaded[1], loaded[2], malformed, runs.runs(),
                    Duration.ofNanos(System.nanoTime() - start));
        }
    }

    private static void load(HistoryTable table, SortedRuns runs, ImportOptions options, long[] loaded) {
        try (WriteTxn tx = table.store().beginWrite()) {
            if (tx.count(table.entries) != 0) {
                if (!options.replaceExisting()) {
                    throw new HistoryException("history table '" + table.name() + "' holds " + tx.count(table.entries)
                            + " entries: import into an empty table, or replace what it holds");
                }
                tx.dropTree(table.entries);
                tx.createTree(table.entries.name());
            }
            try (BulkLoad load = tx.bulkLoad(table.entries, options.fill())) {
                SortedRuns.Rec[] previous = {null};
                runs.merge(rec -> {
                    if (rec.sameHash(previous[0])) {
                        loaded[2]++;
                        return;
                    }
                    previous[0] = rec;
                    load.add(rec.key(), rec.value());
                    loaded[(rec.value()[0] & EntryCodec.ARTICLE) != 0 ? 0 : 1]++;
                });
            }
            tx.put(table.meta, HistoryTable.REMEMBERED_KEY, HistoryTable.longBytes(loaded[1]));
            tx.commit(Durability.SYNC);
            // The load did not pass through the filter: build it again from the new revision.
            table.filters.rebuild();
        }
    }

    /** Lines as bytes, without their newline; a line longer than the limit is consumed but not kept. */
    private static final class LineReader {
        private final InputStream in;
        private final byte[] line = new byte[HisV6Format.MAX_LINE + 1];
        private int length;

        LineReader(InputStream in) {
            this.in = new BufferedInputStream(in, 1 << 16);
        }

        /** The next line (in a shared buffer), or null at the end. */
        byte[] next() {
            try {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                length = 0;
                while (b >= 0 && b != '\n') {
                    if (length < line.length) {
                        line[length] = (byte) b;
                    }
                    length++;
                    b = in.read();
                }
                return line;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the history", e);
            }
        }

        /** Bytes in the line returned last (may exceed the buffer: then the line was too long). */
        int length() {
            return length;
        }
    }
}
