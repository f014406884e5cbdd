// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static io.mvbt.tools.CommandsTest.mvbt;
import static io.mvbt.tools.CommandsTest.output;
import static io.mvbt.tools.CommandsTest.status;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.revisions.Codecs;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/** What a script may rely on: exit statuses, JSON on standard output, ls, get, dump's selections, no files left. */
class ScriptableCliTest {
    @TempDir
    Path dir;

    /** A tree of strings and a tree of longs (key i, value i * i), written with the library's codecs. */
    private Path typedStore() {
        Path file = dir.resolve("typed.mvbt");
        try (Store store = Store.open(file); WriteTxn tx = store.beginWrite()) {
            Tree users = tx.createTree("users");
            tx.put(users, Codecs.STRING.encode("alice"), Codecs.STRING.encode("admin"));
            tx.put(users, Codecs.STRING.encode("bob"), Codecs.STRING.encode("tab\there"));
            Tree scores = tx.createTree("scores");
            for (long i = -5; i < 1_000; i++) {
                tx.put(scores, Codecs.LONG.encode(i), Codecs.LONG.encode(i * i));
            }
            tx.commit();
        }
        assertFalse(Files.exists(FilePageStore.lockPathOf(file)), "the writer made the lock file and took it along");
        return file;
    }

    /** Runs the tool; returns status, standard output and standard error. */
    private static String[] mvbtWithErrors(String... args) {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            Object[] result = mvbt(args);
            return new String[] {Integer.toString(status(result)), output(result), err.toString(StandardCharsets.UTF_8)};
        } finally {
            System.setErr(saved);
        }
    }

    @Test
    void withoutACommandItPrintsItsUsageAndFails() {
        String[] bare = mvbtWithErrors();
        assertEquals(Integer.toString(ExitCodes.USAGE), bare[0]);
        assertEquals("", bare[1], "usage goes to standard error");
        assertTrue(bare[2].contains("Usage: mvbt") && bare[2].contains("Exit status:"), bare[2]);
        assertTrue(bare[2].contains("4   cannot open the store"), bare[2]);
        String[] history = mvbtWithErrors("history");
        assertEquals(Integer.toString(ExitCodes.USAGE), history[0]);
        assertTrue(history[2].contains("Usage: mvbt history"), history[2]);
    }

    @Test
    void theVersionIsTheBuildsVersion() throws IOException {
        Matcher m = Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL)
                .matcher(Files.readString(Path.of("pom.xml")));
        assertTrue(m.find());
        Object[] version = mvbt("--version");
        assertEquals(ExitCodes.OK, status(version));
        assertEquals("mvbt " + m.group(1), output(version).lines().findFirst().orElse(""), output(version));
    }

    @Test
    void exitStatusesTellDamageFromCannotOpenFromUsageFromNotFound() throws IOException {
        Path file = typedStore();
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a store\n");
        assertEquals(Integer.toString(ExitCodes.CANNOT_OPEN), mvbtWithErrors("check", text.toString())[0]);
        assertEquals(Integer.toString(ExitCodes.CANNOT_OPEN), mvbtWithErrors("ls", dir.resolve("none").toString())[0]);
        assertEquals(Integer.toString(ExitCodes.USAGE), mvbtWithErrors("check", "--no-such-option", file.toString())[0]);
        assertEquals(Integer.toString(ExitCodes.USAGE), mvbtWithErrors("get", file.toString(), "users")[0]);
        assertEquals(Integer.toString(ExitCodes.NOT_FOUND), mvbtWithErrors("get", file.toString(), "nobody", "00")[0]);
        try (Store writer = Store.open(file)) {
            assertEquals(Integer.toString(ExitCodes.CANNOT_OPEN), mvbtWithErrors("compact", file.toString())[0]);
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            // A leaf's bytes (past the four meta pages): the store opens, its check finds the damage.
            for (long page = 4; page < raf.length() / 4096; page++) {
                raf.seek(page * 4096 + 300);
                raf.write(0x5A);
            }
        }
        assertEquals(Integer.toString(ExitCodes.DAMAGED), mvbtWithErrors("check", file.toString())[0]);
    }

    @Test
    void withJsonAFailureIsOneJsonObjectOnStandardOutput() throws IOException {
        Path file = typedStore();
        // Long enough for the meta pages: a shorter file may be a store cut short, which is damage.
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a store\n".repeat(20_000));
        String[] notAStore = mvbtWithErrors("stat", "--json", text.toString());
        assertEquals(Integer.toString(ExitCodes.CANNOT_OPEN), notAStore[0]);
        assertTrue(notAStore[1].strip().matches("\\{\"error\":\".*notes\\.txt is not an mvbt store[^\"]*\","
                + "\"status\":4,\"kind\":\"cannotOpen\",\"command\":\"stat\"}"), notAStore[1]);
        assertTrue(notAStore[2].contains("mvbt stat: cannot open"), "and a line for people: " + notAStore[2]);
        String[] usage = mvbtWithErrors("ls", "--json", "--bogus", file.toString());
        assertEquals(Integer.toString(ExitCodes.USAGE), usage[0]);
        assertEquals("{\"error\":\"Unknown option: '--bogus'\",\"status\":2,\"kind\":\"usage\",\"command\":\"ls\"}",
                usage[1].strip());
        String[] noTree = mvbtWithErrors("get", "--json", file.toString(), "nobody", "00");
        assertTrue(noTree[1].strip().startsWith("{\"error\":\"there is no tree 'nobody'"), noTree[1]);
        assertTrue(noTree[1].strip().endsWith("\"status\":5,\"kind\":\"notFound\",\"command\":\"get\"}"), noTree[1]);
    }

    @Test
    void lsListsTreesWithEntriesDepthAndPages() {
        Path file = typedStore();
        Object[] ls = mvbt("ls", file.toString());
        assertEquals(ExitCodes.OK, status(ls), output(ls));
        List<String> lines = output(ls).lines().toList();
        assertTrue(lines.get(0).matches("TREE +ENTRIES +DEPTH +PAGES"), lines.get(0));
        assertTrue(lines.get(1).matches("scores +1,005 +2 +\\d+"), lines.get(1));
        assertTrue(lines.get(2).matches("users +2 +1 +1"), lines.get(2));
        Object[] json = mvbt("ls", "--json", file.toString());
        assertTrue(output(json).strip().matches("\\{\"store\":\".*\",\"revision\":1,\"trees\":\\[\\{\"name\":\"scores\","
                + "\"entries\":1005,\"depth\":2,\"pages\":\\d+},\\{\"name\":\"users\",\"entries\":2,\"depth\":1,"
                + "\"pages\":1}],\"damaged\":false}"), output(json));
    }

    @Test
    void getPrintsOneValueDecodedWithTheNamedCodecs() {
        Path file = typedStore();
        String f = file.toString();
        Object[] text = mvbt("get", "--key-codec", "string", "--value-codec", "string", f, "users", "alice");
        assertEquals(ExitCodes.OK, status(text));
        assertEquals("admin\n", output(text));
        Object[] hex = mvbt("get", f, "users", "616c696365");
        assertEquals("61646d696e\n", output(hex), "bytes are hex by default");
        Object[] number = mvbt("get", "--key-codec", "LONG", "--value-codec", "long", "--json", f, "scores", "-3");
        assertEquals("{\"tree\":\"scores\",\"key\":-3,\"value\":9,\"found\":true}", output(number).strip());
        Object[] missing = mvbt("get", "--key-codec", "string", "--json", f, "users", "carol");
        assertEquals(ExitCodes.NOT_FOUND, status(missing));
        assertEquals("{\"tree\":\"users\",\"key\":\"carol\",\"value\":null,\"found\":false}", output(missing).strip());
        String[] notHex = mvbtWithErrors("get", f, "users", "alice");
        assertEquals(Integer.toString(ExitCodes.USAGE), notHex[0]);
        assertTrue(notHex[2].contains("--key-codec string takes text"), notHex[2]);
        String[] wrongCodec = mvbtWithErrors("get", "--key-codec", "string", "--value-codec", "long", f, "users",
                "alice");
        assertEquals(Integer.toString(ExitCodes.FAILED), wrongCodec[0]);
        assertTrue(wrongCodec[2].contains("is not a long"), wrongCodec[2]);
    }

    @Test
    void dumpSelectsATreeAndARangeInEachFormat() throws IOException {
        Path file = typedStore();
        String f = file.toString();
        Object[] json = mvbt("dump", "--tree", "scores", "--from", "-1", "--to", "2", "--key-codec", "long",
                "--value-codec", "long", "--format", "json", f);
        assertEquals(ExitCodes.OK, status(json), output(json));
        assertEquals("{\"tree\":\"scores\",\"key\":-1,\"value\":1}\n{\"tree\":\"scores\",\"key\":0,\"value\":0}\n"
                + "{\"tree\":\"scores\",\"key\":1,\"value\":1}\n", output(json));
        Object[] text = mvbt("dump", "--tree", "users", "--format", "text", "--key-codec", "string", "--value-codec",
                "string", f);
        assertEquals("# tree users\nalice\tadmin\nbob\ttab\\there\n", output(text));
        Object[] from = mvbt("dump", "--tree", "users", "--from", "b", "--format", "text", "--key-codec", "string", f);
        assertEquals("# tree users\nbob\t7461620968657265\n", output(from));
        // The hex form of a selection is a dump like any other: load reads it back.
        Path part = dir.resolve("part.dump");
        assertEquals(ExitCodes.OK, status(mvbt("dump", "--tree", "scores", "--to", "10", "--key-codec", "long", f,
                "-o", part.toString())));
        Path loaded = dir.resolve("part.mvbt");
        assertEquals(ExitCodes.OK, status(mvbt("load", part.toString(), loaded.toString())));
        try (Store store = Store.open(loaded); Snapshot s = store.beginRead()) {
            assertEquals(List.of("scores"), s.treeNames());
            assertEquals(15, s.count(store.tree("scores")));
            assertArrayEquals(Codecs.LONG.encode(81L), s.get(store.tree("scores"), Codecs.LONG.encode(9L)));
        }
        assertEquals(ExitCodes.NOT_FOUND, status(mvbt("dump", "--tree", "nobody", f, "-o",
                dir.resolve("never.dump").toString())));
        assertFalse(Files.exists(dir.resolve("never.dump")));
    }

    @Test
    void countsArePlural() throws IOException {
        Path file = dir.resolve("one.mvbt");
        try (Store store = Store.open(file); WriteTxn tx = store.beginWrite()) {
            tx.put(tx.createTree("t"), new byte[] {1}, new byte[] {2});
            tx.commit();
        }
        assertTrue(output(mvbt("check", file.toString())).contains(", 1 tree, 1 entry checked"));
        try (Store store = Store.open(file); Snapshot held = store.beginRead()) {
            Object[] readers = mvbt("readers", file.toString());
            assertTrue(output(readers).contains(": 1 holder\n"), output(readers));
        }
    }

    @Test
    void readingCommandsLeaveNoLockFileTheyDidNotFind() throws IOException {
        Path file = typedStore();
        Path lock = FilePageStore.lockPathOf(file);
        String f = file.toString();
        for (String[] command : new String[][] {{"stat", f}, {"check", f}, {"ls", f}, {"get", f, "users", "00"},
                {"dump", f}, {"readers", f}}) {
            mvbt(command);
            assertFalse(Files.exists(lock), command[0] + " left " + lock);
        }
        Files.createFile(lock);
        assertEquals(ExitCodes.OK, status(mvbt("check", f)));
        assertTrue(Files.exists(lock), "a lock file found is left where it was");
    }

    @Test
    void checkCountsThePagesStatSaysAreInUse() {
        Path file = typedStore();
        String stat = output(mvbt("stat", "--json", file.toString()));
        String check = output(mvbt("check", "--json", file.toString()));
        Matcher inUse = Pattern.compile("\"inUse\":(\\d+)").matcher(stat);
        Matcher checked = Pattern.compile("\"pagesInUse\":(\\d+)").matcher(check);
        assertTrue(inUse.find() && checked.find(), stat + "\n" + check);
        assertEquals(inUse.group(1), checked.group(1));
        assertTrue(output(mvbt("check", file.toString())).contains(inUse.group(1) + " pages in use (4 meta)"));
    }
}
