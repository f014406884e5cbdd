// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.function.LongConsumer;

import io.mvbt.revisions.BulkLoad;
import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * mvbt's portable text dump (docs/dump-format.md): independent of page size and file format,
 * exact for any bytes, and checked on load (counts, order, a closing line against truncation).
 *
 * <pre>
 * mvbt-dump 1
 * tree &lt;name in hex&gt; &lt;entries&gt;
 * &lt;key in hex&gt;=&lt;value in hex&gt;      one line per entry, keys ascending
 * end
 * ...                                   the next tree
 * end-dump &lt;trees&gt;
 * </pre>
 */
final class DumpFormat {
    static final String HEADER = "mvbt-dump 1";
    private static final HexFormat HEX = HexFormat.of();

    private DumpFormat() {
    }

    /** Writes the trees and keys of {@code selection} in {@code snapshot}; returns the entries written. */
    static long write(Store store, Snapshot snapshot, DumpSelection selection, Writer out, LongConsumer progress)
            throws IOException {
        out.write(HEADER);
        out.write('\n');
        long written = 0;
        int trees = 0;
        StringBuilder line = new StringBuilder();
        for (String name : selection.trees(store, snapshot)) {
            Tree tree = store.tree(name);
            out.write("tree " + hex(name.getBytes(StandardCharsets.UTF_8)) + " " + selection.count(snapshot, tree)
                    + "\n");
            try (Cursor c = snapshot.cursor(tree)) {
                for (boolean more = selection.first(c); more; more = selection.next(c)) {
                    line.setLength(0);
                    HEX.formatHex(line, c.keyBytes());
                    line.append('=');
                    HEX.formatHex(line, c.valueBytes());
                    line.append('\n');
                    out.append(line);
                    if ((++written & 0xFFFF) == 0) {
                        progress.accept(written);
                    }
                }
            }
            out.write("end\n");
            trees++;
        }
        out.write("end-dump " + trees + "\n");
        out.flush();
        progress.accept(written);
        return written;
    }

    /**
     * Loads a dump into {@code store}, one write transaction per tree with the sorted bulk loader;
     * returns the entries loaded. Malformed input throws {@link CommandException} naming the line.
     */
    static long load(BufferedReader in, Store store, LongConsumer progress) throws IOException {
        LineReader lines = new LineReader(in);
        String first = lines.next();
        if (!HEADER.equals(first)) {
            throw lines.error("not an mvbt dump (expected '" + HEADER + "')");
        }
        long loaded = 0;
        int trees = 0;
        while (true) {
            String line = lines.next();
            if (line == null) {
                throw lines.error("the dump ends without its 'end-dump' line: it is truncated");
            }
            if (line.startsWith("end-dump ")) {
                if (parseCount(lines, line.substring(9)) != trees) {
                    throw lines.error("the dump says " + line.substring(9) + " trees, it holds " + trees);
                }
                if (lines.next() != null) {
                    throw lines.error("text after 'end-dump'");
                }
                progress.accept(loaded);
                return loaded;
            }
            String[] parts = line.split(" ", -1);
            if (parts.length != 3 || !parts[0].equals("tree")) {
                throw lines.error("expected 'tree <name in hex> <entries>' or 'end-dump <trees>'");
            }
            String name = new String(unhex(lines, parts[1]), StandardCharsets.UTF_8);
            long expected = parseCount(lines, parts[2]);
            long entries = 0;
            try (WriteTxn tx = store.beginWrite()) {
                Tree tree = tx.createTree(name);
                try (BulkLoad load = tx.bulkLoad(tree)) {
                    while (true) {
                        String entry = lines.next();
                        if (entry == null) {
                            throw lines.error("tree '" + name + "' has no 'end' line: the dump is truncated");
                        }
                        if (entry.equals("end")) {
                            break;
                        }
                        int eq = entry.indexOf('=');
                        if (eq < 0) {
                            throw lines.error("expected '<key in hex>=<value in hex>' or 'end'");
                        }
                        byte[] key = unhex(lines, entry.substring(0, eq));
                        byte[] value = unhex(lines, entry.substring(eq + 1));
                        try {
                            load.add(key, value);
                        } catch (IllegalArgumentException | io.mvbt.MvbtException e) {
                            throw lines.error(e.getMessage());
                        }
                        entries++;
                        if ((++loaded & 0xFFFF) == 0) {
                            progress.accept(loaded);
                        }
                    }
                }
                if (entries != expected) {
                    throw lines.error("tree '" + name + "' says " + expected + " entries, it holds " + entries);
                }
                tx.commit();
            }
            trees++;
        }
    }

    private static long parseCount(LineReader lines, String text) {
        try {
            long n = Long.parseLong(text);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw lines.error("'" + text + "' is not a count");
    }

    static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    private static byte[] unhex(LineReader lines, String text) {
        try {
            return HEX.parseHex(text);
        } catch (IllegalArgumentException e) {
            throw lines.error("not hex: " + e.getMessage());
        }
    }

    /** Lines with their numbers, for errors that say where. */
    private static final class LineReader {
        private final BufferedReader in;
        private long number;

        LineReader(BufferedReader in) {
            this.in = in;
        }

        String next() throws IOException {
            String line = in.readLine();
            if (line != null) {
                number++;
            }
            return line;
        }

        CommandException error(String what) {
            return new CommandException("dump line " + number + ": " + what);
        }
    }
}
