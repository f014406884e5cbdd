// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.history.MessageIdHash;
import io.mvbt.revisions.Store;

/** {@code mvbt history} end to end: import, stat, lookup, export, expire, check. */
class HistoryCommandTest {
    @TempDir
    Path dir;

    private int run(String... args) {
        return Main.run(args);
    }

    private String output(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            run(args);
        } finally {
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theBenchReportsTheSpreadOfLookupsBesideExpiry() {
        String out = output("history", "bench", "--engines", "mvbt", "--entries", "20000", "--lookups", "2000",
                "--dir", dir.toString());
        String expiry = out.lines().filter(l -> l.startsWith("expiry of 10% under load")).findFirst().orElse("");
        String spread = "[0-9.]+ / [0-9.]+ / [0-9.]+ / [0-9,]+ µs";
        assertTrue(expiry.matches(".*lookup p50/p99/p99\\.9/worst " + spread + " vs " + spread), out);
    }

    @Test
    void noExpirySkipsTheExpiryPhase() {
        String out = output("history", "bench", "--engines", "mvbt", "--entries", "5000", "--lookups", "500",
                "--no-expiry", "--dir", dir.toString());
        assertTrue(out.contains("missingcheck") && !out.contains("expire"), out);
    }

    @Test
    void importLookupExportExpireAndCheck() throws Exception {
        String a = "[" + MessageIdHash.toText(MessageIdHash.of("<a@example.com>")) + "]\t1760000000~-~1759990000\t"
                + "@030100000000000000000000000000000001@\n";
        String r = "[" + MessageIdHash.toText(MessageIdHash.of("<r@example.com>")) + "]\t1760000001~-~1759990001\n";
        String history = a.compareTo(r) < 0 ? a + r : r + a;
        Path text = dir.resolve("history");
        Files.writeString(text, history, StandardCharsets.US_ASCII);
        String store = dir.resolve("h.mvbt").toString();

        assertEquals(0, run("history", "import", "-s", store, text.toString()));
        assertTrue(output("history", "stat", "-s", store).contains("entries: 2 (1 article, 1 remembered)"));
        assertTrue(output("history", "lookup", "-s", store, "<a@EXAMPLE.com>").contains("article @0301"));
        assertTrue(output("history", "lookup", "-s", store, "<r@example.com>").contains("remembered"));
        assertEquals(ExitCodes.NOT_FOUND, run("history", "lookup", "-s", store, "<nobody@example.com>"));
        Path typo = dir.resolve("typo.mvbt");
        assertEquals(ExitCodes.CANNOT_OPEN, run("history", "lookup", "-s", typo.toString(), "<a@example.com>"));
        assertTrue(!Files.exists(typo), "a lookup must not create a store");
        assertEquals(ExitCodes.NOT_FOUND, run("history", "lookup", "-s", store, "--table", "typo", "<a@example.com>"));
        assertEquals(ExitCodes.NOT_FOUND, run("history", "check", "-s", store, "--table", "typo"));

        Path out = dir.resolve("exported");
        assertEquals(0, run("history", "export", "-s", store, out.toString()));
        assertArrayEquals(Files.readAllBytes(text), Files.readAllBytes(out));
        assertEquals(ExitCodes.FAILED, run("history", "export", "-s", store, out.toString()), "export must not overwrite");

        String dry = output("history", "expire", "-s", store, "--now", "1760600000", "--retention", "5", "--dry-run");
        assertTrue(dry.contains("1 to remembered"), dry);
        assertTrue(output("history", "stat", "-s", store).contains("(1 article, 1 remembered)"));
        String real = output("history", "expire", "-s", store, "--now", "1760600000", "--retention", "5");
        assertTrue(real.contains("entries now: 2 (0 articles, 2 remembered)"), real);
        assertEquals(0, run("history", "check", "-s", store));
    }

    /** Every mvbt command takes the store first; -s, once the only way, still works. */
    @Test
    void theStoreComesFirstAsInEveryCommandAndDashSStillWorks() throws Exception {
        String a = "[" + MessageIdHash.toText(MessageIdHash.of("<a@example.com>")) + "]\t1760000000~-~1759990000\t"
                + "@030100000000000000000000000000000001@\n";
        Path text = dir.resolve("history");
        Files.writeString(text, a, StandardCharsets.US_ASCII);
        String store = dir.resolve("h.mvbt").toString();
        assertEquals(0, run("history", "import", store, text.toString()));
        assertTrue(output("history", "stat", store).contains("entries: 1 (1 article, 0 remembered)"));
        assertTrue(output("history", "lookup", store, "<a@example.com>").contains("article @0301"));
        assertTrue(output("history", "lookup", "--store", store, "<a@example.com>").contains("article @0301"));
        assertEquals(ExitCodes.NOT_FOUND, run("history", "lookup", store, "<b@example.com>"));
        assertEquals(0, run("history", "export", store, dir.resolve("out").toString()));
        assertArrayEquals(Files.readAllBytes(text), Files.readAllBytes(dir.resolve("out")));
        assertEquals(0, run("history", "check", store));
        PrintStream saved = System.err;
        System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try {
            assertEquals(ExitCodes.USAGE, run("history", "lookup", store), "no Message-ID");
            assertEquals(ExitCodes.USAGE, run("history", "lookup", "-s", store, "<a@example.com>", "extra"));
            assertEquals(ExitCodes.USAGE, run("history", "stat", "-s", store, "extra"));
            assertEquals(ExitCodes.USAGE, run("history", "stat"), "no store");
            assertEquals(ExitCodes.USAGE, run("history"), "no subcommand");
        } finally {
            System.setErr(saved);
        }
    }

    @Test
    void readingCommandsGoOnBesideARunningWriter() throws Exception {
        Path text = dir.resolve("history.txt");
        Files.writeString(text, "[" + MessageIdHash.toText(MessageIdHash.of("<a@example.com>")) + "]\t1760000000~-~"
                + "1759990000\t@030100000000000000000000000000000001@\n", StandardCharsets.US_ASCII);
        String store = dir.resolve("beside.mvbt").toString();
        assertEquals(0, run("history", "import", "-s", store, text.toString()));
        try (Store writer = Store.open(Path.of(store))) {
            assertTrue(output("history", "stat", "-s", store).contains("entries: 1 (1 article, 0 remembered)"));
            assertEquals(0, run("history", "check", "-s", store));
            assertTrue(output("history", "lookup", "-s", store, "<a@example.com>").contains("article @0301"));
            assertEquals(ExitCodes.NOT_FOUND, run("history", "lookup", "-s", store, "<nobody@example.com>"));
            assertEquals(0, run("history", "export", "-s", store, dir.resolve("beside.txt").toString()));
            assertEquals(1, Files.readAllLines(dir.resolve("beside.txt")).size());
            assertEquals(ExitCodes.CANNOT_OPEN, run("history", "expire", "-s", store), "expiry needs the writer");
        }
    }

    @Test
    void aMalformedFileFailsNamingTheLine() throws Exception {
        Path text = dir.resolve("history");
        Files.writeString(text, "[00000000000000000000000000000000]\t1~-\nnonsense\n", StandardCharsets.US_ASCII);
        String store = dir.resolve("h.mvbt").toString();
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertTrue(run("history", "import", "-s", store, text.toString()) != 0);
        } finally {
            System.setErr(saved);
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("line 2"), err.toString(StandardCharsets.UTF_8));
        assertTrue(output("history", "stat", "-s", store).contains("entries: 0"));
        assertEquals(0, run("history", "import", "-s", store, "--skip-malformed", text.toString()));
        assertTrue(output("history", "stat", "-s", store).contains("entries: 1 (0 articles, 1 remembered)"));
    }

    @Test
    void theBenchRunsBothEnginesAndValidatesThem() {
        String report = output("history", "bench", "--entries", "3000", "--lookups", "3000", "--sync-every", "500",
                "--dir", dir.toString());
        for (String phase : new String[] {"write", "sync", "reopen", "seqcheck", "walk", "randlookup", "missingcheck",
            "footprint"}) {
            assertTrue(report.lines().anyMatch(l -> l.startsWith(phase + " ") && l.trim().endsWith("x")),
                    phase + " row with a ratio in\n" + report);
        }
        assertTrue(report.contains("csv: entries,mvbt_write,sqlite_write,ratio_write"), report);
    }
}
