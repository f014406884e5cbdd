// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongConsumer;

import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;

/**
 * {@code dump --format text} and {@code --format json}: entries decoded with the named codecs, for
 * people and scripts; unlike the portable dump format ({@link DumpFormat}) they are not loaded back.
 * Text: a line {@code # tree NAME} before each tree's entries, then {@code key<TAB>value} with tabs,
 * newlines and backslashes escaped as in Java. JSON: one object per line (JSON Lines),
 * {@code {"tree": ..., "key": ..., "value": ...}}.
 */
final class EntryLines {
    private EntryLines() {
    }

    /** Writes the entries of {@code selection}; returns how many. */
    static long write(Store store, Snapshot snapshot, DumpSelection selection, CodecOptions codecs, boolean json,
            Writer out, LongConsumer progress) throws IOException {
        long written = 0;
        Map<String, Object> entry = new LinkedHashMap<>();
        for (String name : selection.trees(store, snapshot)) {
            Tree tree = store.tree(name);
            if (!json) {
                out.write("# tree " + escape(name) + "\n");
            }
            try (Cursor c = snapshot.cursor(tree)) {
                for (boolean more = selection.first(c); more; more = selection.next(c)) {
                    Object key = codecs.key.decode(c.key(), "a key in tree '" + name + "'");
                    Object value = codecs.value.decode(c.value(), "a value in tree '" + name + "'");
                    if (json) {
                        entry.put("tree", name);
                        entry.put("key", key);
                        entry.put("value", value);
                        out.write(Json.write(entry));
                    } else {
                        out.write(escape(key.toString()));
                        out.write('\t');
                        out.write(escape(value.toString()));
                    }
                    out.write('\n');
                    if ((++written & 0xFFFF) == 0) {
                        progress.accept(written);
                    }
                }
            }
        }
        out.flush();
        progress.accept(written);
        return written;
    }

    /** One line per entry whatever a string holds: tab, newline, carriage return and backslash escaped. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\\' -> out.append("\\\\");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
