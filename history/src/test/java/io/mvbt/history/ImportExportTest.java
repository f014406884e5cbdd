// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import static io.mvbt.history.Tokens.id;
import static io.mvbt.history.Tokens.token;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Store;

/** INN hisv6 text histories in and out. */
class ImportExportTest {
    private static final long T = 1_760_000_000L;

    @TempDir
    Path dir;

    private ImportOptions options() {
        return ImportOptions.defaults().tempDir(dir);
    }

    private static ByteArrayInputStream text(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static String export(HistoryTable h) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        HistoryExport.run(h, out);
        return out.toString(StandardCharsets.US_ASCII);
    }

    /** A line as INN's hisv6 formatline writes it, spelled out here independently of HisV6Format. */
    private static String innLine(byte[] hash, long arrived, long posted, long expires, String token) {
        String h = "[" + MessageIdHash.toText(hash) + "]\t" + arrived + "~";
        if (token == null) {
            return h + "-" + (posted > 0 ? "~" + posted : "") + "\n";
        }
        return h + (expires > 0 ? Long.toString(expires) : "-") + "~" + posted + "\t" + token + "\n";
    }

    /** A canonical history of {@code n} entries of every shape, in hash order. */
    private static String canonicalHistory(int n, long seed) {
        Random random = new Random(seed);
        TreeMap<String, String> lines = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            byte[] hash = MessageIdHash.of(id(i));
            long arrived = random.nextInt(10) == 0 ? 0 : T + random.nextInt(1_000_000);
            long posted = random.nextInt(5) == 0 ? 0 : T - random.nextInt(100_000);
            long expires = random.nextBoolean() ? 0 : T + random.nextInt(50_000_000);
            String token = random.nextInt(3) == 0 ? null : token(i).toText();
            lines.put(MessageIdHash.toText(hash), innLine(hash, arrived, posted, expires, token));
        }
        return String.join("", lines.values());
    }

    @Test
    void aCanonicalFileComesBackByteForByte() {
        String history = canonicalHistory(5_000, 1);
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            ImportReport r = HistoryImport.run(h, text(history), options());
            assertEquals(5_000, r.lines());
            assertEquals(5_000, r.articles() + r.remembered());
            assertEquals(0, r.duplicates() + r.malformed());
            assertEquals(new HistoryCounts(5_000, r.articles(), r.remembered()), h.counts());
            assertEquals(history, export(h));
            store.check().throwIfDamaged();
        }
    }

    @Test
    void importedEntriesAreFoundByMessageId() {
        String history = "[A0D432DC9718979BEFB4ACADA4BAD863]\t1700000000~1700864000~1699990000\t"
                + "@0301000000000000000100000000000000AB@\n"
                + "[" + MessageIdHash.toText(MessageIdHash.of("<gone@x.invalid>")) + "]\t1700000001~-~1699990001\n";
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            HistoryImport.run(h, text(history), options());
            HistoryEntry e = h.lookup("<87is2w1u6i.fsf@windlord.stanford.edu>");
            assertEquals(1_700_000_000L, e.arrived());
            assertEquals(1_700_864_000L, e.expires());
            assertEquals(1_699_990_000L, e.posted());
            assertEquals(3, e.token().type());
            assertEquals(1, e.token().storageClass());
            assertEquals("@0301000000000000000100000000000000AB@", e.token().toText());
            assertNull(h.lookup("<gone@X.invalid>"));
            assertTrue(h.check("<gone@X.invalid>"));
            assertEquals(1_699_990_001L, h.entry("<gone@x.invalid>").posted());
            assertEquals(new HistoryCounts(2, 1, 1), h.counts());
        }
    }

    @Test
    void looseButValidLinesAreReadAndWrittenCanonically() {
        byte[] a = MessageIdHash.of(id(1));
        byte[] b = MessageIdHash.of(id(2));
        byte[] c = MessageIdHash.of(id(3));
        byte[] d = MessageIdHash.of(id(4));
        String hexA = MessageIdHash.toText(a).toLowerCase();
        String history = "[" + hexA + "]\t100\n"                                        // arrival only
                + "[" + MessageIdHash.toText(b) + "]\t200~-~0   \n"                     // padded, posted 0
                + "[" + MessageIdHash.toText(c) + "]\t300~999~250\n"                    // remembered with expiry
                + "[" + MessageIdHash.toText(d) + "]\t400~-~350\t" + token(4).toText().toLowerCase() + "\n";
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            HistoryImport.run(h, text(history), options());
            assertEquals(HistoryEntry.remembered(a, 100, 0), h.entry(a));
            assertEquals(HistoryEntry.remembered(b, 200, 0), h.entry(b));
            assertEquals(HistoryEntry.remembered(c, 300, 250), h.entry(c));
            assertEquals(HistoryEntry.article(d, 400, 350, 0, token(4)), h.entry(d));
            TreeMap<String, String> expected = new TreeMap<>();
            expected.put(MessageIdHash.toText(a), innLine(a, 100, 0, 0, null));
            expected.put(MessageIdHash.toText(b), innLine(b, 200, 0, 0, null));
            expected.put(MessageIdHash.toText(c), innLine(c, 300, 250, 0, null));
            expected.put(MessageIdHash.toText(d), innLine(d, 400, 350, 0, token(4).toText()));
            assertEquals(String.join("", expected.values()), export(h));
        }
    }

    @Test
    void aMalformedLineIsNamedAndNothingIsImported() {
        String good = canonicalHistory(100, 2);
        List<String> bad = List.of(
                "A0D432DC9718979BEFB4ACADA4BAD863]\t1~-",         // no [
                "[A0D432DC9718979BEFB4ACADA4BAD86]\t1~-",          // 31 digits
                "[A0D432DC9718979BEFB4ACADA4BAD86X]\t1~-",         // not hex
                "[A0D432DC9718979BEFB4ACADA4BAD863] 1~-",          // no tab
                "[A0D432DC9718979BEFB4ACADA4BAD863]\t~-",          // no arrival digits
                "[A0D432DC9718979BEFB4ACADA4BAD863]\t99999999999999999999~-", // out of range
                "[A0D432DC9718979BEFB4ACADA4BAD863]\t1~-~2\t@0102@", // short token
                "[A0D432DC9718979BEFB4ACADA4BAD863]\t1~-~2x",       // junk after times
                "",                                                  // empty line
                "[A0D432DC9718979BEFB4ACADA4BAD863]\t1~-~2\t" + "@".repeat(1100)); // too long
        for (String line : bad) {
            String[] lines = good.split("\n");
            List<String> all = new ArrayList<>(List.of(lines));
            all.add(37, line);
            String history = String.join("\n", all) + "\n";
            try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
                long revision = store.revision();
                MalformedLineException e = assertThrows(MalformedLineException.class,
                        () -> HistoryImport.run(h, text(history), options()), line);
                assertEquals(38, e.lineNumber(), line);
                assertTrue(e.getMessage().startsWith("line 38: "), e.getMessage());
                assertEquals(revision, store.revision(), "nothing committed");
                assertEquals(new HistoryCounts(0, 0, 0), h.counts());

                ImportReport r = HistoryImport.run(h, text(history), options().skipMalformed(true));
                assertEquals(1, r.malformed(), line);
                assertEquals(101, r.lines());
                assertEquals(100, h.counts().total());
                assertEquals(good, export(h));
            }
        }
    }

    @Test
    void aFileLargerThanARunIsSortedOnDiskAndTheFirstOfDuplicatesWins() throws Exception {
        String canonical = canonicalHistory(3_000, 3);
        List<String> lines = new ArrayList<>(List.of(canonical.split("\n")));
        Collections.shuffle(lines, new Random(4));
        // Later duplicates of three hashes, with other contents: the first line of each stays.
        List<String> withDuplicates = new ArrayList<>(lines);
        for (int i = 0; i < 3; i++) {
            withDuplicates.add(lines.get(i).substring(0, 35) + "1~-");
        }
        Path file = dir.resolve("history");
        Files.writeString(file, String.join("\n", withDuplicates) + "\n", StandardCharsets.US_ASCII);
        try (HistoryTable h = HistoryTable.open(dir.resolve("h.mvbt"))) {
            ImportReport r = HistoryImport.run(h, file, options().runEntries(128));
            assertEquals(3_003, r.lines());
            assertEquals(3, r.duplicates());
            assertEquals(3_003 / 128, r.runs());
            assertEquals(3_000, h.counts().total());
            Path out = dir.resolve("exported");
            assertEquals(3_000, HistoryExport.run(h, out));
            assertArrayEquals(canonical.getBytes(StandardCharsets.US_ASCII), Files.readAllBytes(out));
            h.store().check().throwIfDamaged();
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString().startsWith("mvbt-history-run")).toList(),
                    "temporary runs are deleted");
        }
    }

    @Test
    void aTableWithEntriesIsOnlyReplacedWhenAskedAndThenAtOnce() {
        String first = canonicalHistory(200, 5);
        try (Store store = Store.inMemory(); HistoryTable h = HistoryTable.open(store)) {
            h.write("<before@x>", T, T, 0, token(1));
            h.remember("<remembered@x>", T, T);
            HistoryException e = assertThrows(HistoryException.class, () -> HistoryImport.run(h, text(first), options()));
            assertTrue(e.getMessage().contains("holds 2 entries"), e.getMessage());
            try (HistoryReader old = h.reader()) {
                ImportReport r = HistoryImport.run(h, text(first), options().replaceExisting(true));
                assertEquals(2, old.counts().total(), "a reader open before keeps the old table");
                assertTrue(old.check("<before@x>"));
                assertEquals(new HistoryCounts(200, r.articles(), r.remembered()), h.counts());
            }
            assertFalse(h.check("<before@x>"));
            assertEquals(first, export(h));
            // The imported table takes ordinary writes afterwards.
            assertTrue(h.write("<after@x>", T, T, 0, token(2)));
            assertEquals(201, h.counts().total());
            store.check().throwIfDamaged();
        }
    }
}
