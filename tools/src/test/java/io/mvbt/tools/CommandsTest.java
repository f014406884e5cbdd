// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/** The command-line tool on real stores: output, exit statuses, round trips, refusals. */
class CommandsTest {
    @TempDir
    Path dir;

    /** Runs the tool; returns the exit status and what it printed. */
    static Object[] mvbt(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            int status = Main.run(args);
            return new Object[] {status, out.toString(StandardCharsets.UTF_8)};
        } finally {
            System.setOut(saved);
        }
    }

    static int status(Object[] result) {
        return (Integer) result[0];
    }

    static String output(Object[] result) {
        return (String) result[1];
    }

    /** Two trees: binary keys, an empty value, values in overflow pages, a non-ASCII tree name. */
    private Path sampleStore() {
        Path file = dir.resolve("sample.mvbt");
        Random random = new Random(5);
        try (Store store = Store.open(file); WriteTxn tx = store.beginWrite()) {
            Tree a = tx.createTree("articles");
            for (int i = 0; i < 5_000; i++) {
                byte[] value = new byte[i % 500 == 0 ? 20_000 : i % 40];
                random.nextBytes(value);
                tx.put(a, ByteBuffer.allocate(8).putLong(i * 7919L).array(), value);
            }
            Tree b = tx.createTree("índice ✓");
            tx.put(b, new byte[] {0}, new byte[0]);
            tx.put(b, new byte[] {(byte) 0xff, 0, 1}, "x".getBytes());
            tx.commit();
        }
        return file;
    }

    /** Stat lists named revisions and what they pin; copy and compact say that they leave them out or alone. */
    @Test
    void namedRevisionsAreListedAndNeitherCopiedNorCompacted() throws IOException {
        Path file = sampleStore();
        Path copied = dir.resolve("named-copy.mvbt");
        long named;
        try (Store store = Store.open(file)) {
            named = store.retain("nightly");
            store.update(tx -> tx.deleteRange(store.tree("articles"), new byte[0], new byte[] {(byte) 0xff}));
            for (int i = 0; i < 100; i++) {
                // Frees the detached subtrees, which the named revision goes on reaching.
                store.update(tx -> tx.put(store.tree("articles"), new byte[] {1}, new byte[] {2}));
            }
        }
        Object[] stat = mvbt("stat", file.toString());
        assertEquals(0, status(stat), output(stat));
        assertTrue(output(stat).contains("named revisions: 1"), output(stat));
        assertTrue(output(stat).matches("(?s).*named 'nightly': revision " + String.format("%,d", named)
                + ", committed \\S+, pins [1-9][0-9,]* pages .*"), output(stat));
        String json = output(mvbt("stat", "--json", file.toString()));
        assertTrue(json.contains("\"namedRevisions\":[{\"name\":\"nightly\",\"revision\":" + named + ","), json);
        PrintStream savedErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, status(mvbt("copy", file.toString(), copied.toString())));
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("the copy holds none of them"), err.toString());
            assertTrue(output(mvbt("stat", copied.toString())).contains("named revisions: 0"));
            assertEquals(0, status(mvbt("compact", file.toString())));
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("the pages they reach stay where they are"),
                    err.toString());
        } finally {
            System.setErr(savedErr);
        }
        try (Store store = Store.open(file); Snapshot s = store.beginRead("nightly")) {
            assertEquals(5_000, s.count(store.tree("articles")));
        }
    }

    @Test
    void statAndCheckDescribeAStore() {
        Path file = sampleStore();
        Object[] stat = mvbt("stat", file.toString());
        assertEquals(0, status(stat));
        assertTrue(output(stat).contains("tree 'articles'"), output(stat));
        assertTrue(output(stat).contains("entries 5,000"), output(stat));
        assertTrue(output(stat).contains("tree 'índice ✓'"), output(stat));
        Object[] check = mvbt("check", file.toString());
        assertEquals(0, status(check));
        assertTrue(output(check).contains("clean"), output(check));
    }

    /** --json prints one JSON object with what the text says; the exit status stays the same. */
    @Test
    void statReadersAndCheckPrintJson() {
        Path file = sampleStore();
        Object[] stat = mvbt("stat", "--json", file.toString());
        assertEquals(0, status(stat), output(stat));
        String s = output(stat).strip();
        assertEquals(1, output(stat).lines().count(), s);
        assertTrue(s.startsWith("{\"store\":\"" + file.toString().replace("\\", "\\\\") + "\",\"revision\":"), s);
        assertTrue(s.contains("\"pages\":{\"inFile\":"), s);
        assertTrue(s.contains("{\"name\":\"articles\",\"entries\":5000,\"depth\":"), s);
        assertTrue(s.contains("{\"name\":\"índice ✓\",\"entries\":"), s);
        assertTrue(s.endsWith(",\"damaged\":false}"), s);
        Object[] check = mvbt("check", "--json", file.toString());
        assertEquals(0, status(check), output(check));
        assertTrue(output(check).strip().endsWith("\"problems\":[],\"clean\":true}"), output(check));
        try (Store writer = Store.open(file); Snapshot held = writer.beginRead()) {
            Object[] readers = mvbt("readers", "--json", file.toString());
            assertEquals(0, status(readers), output(readers));
            assertTrue(output(readers).contains("{\"pid\":" + ProcessHandle.current().pid() + ",\"kind\":\"snapshot\","
                    + "\"revision\":" + held.revision() + ","), output(readers));
        }
    }

    @Test
    void jsonEscapesWhatStringsHold() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("a\"b", "line\nnext\ttab\\ \u0001");
        m.put("n", java.util.Arrays.asList(1, 2.5, null, true, Double.NaN));
        assertEquals("{\"a\\\"b\":\"line\\nnext\\ttab\\\\ \\u0001\",\"n\":[1,2.5,null,true,null]}", Json.write(m));
    }

    @Test
    void besideARunningWriterTheToolsReadAndListReaders() {
        Path file = sampleStore();
        try (Store writer = Store.open(file); Snapshot held = writer.beginRead()) {
            try (WriteTxn tx = writer.beginWrite()) {
                tx.put(writer.tree("articles"), new byte[] {1}, new byte[] {2});
                tx.commit();
            }
            Object[] stat = mvbt("stat", file.toString());
            assertEquals(0, status(stat), output(stat));
            assertTrue(output(stat).contains("entries 5,001"), output(stat));
            assertTrue(output(stat).contains("known to the writer"), output(stat));
            Object[] check = mvbt("check", file.toString());
            assertEquals(0, status(check), output(check));
            assertTrue(output(check).contains("clean (trees and free map"), output(check));
            Object[] readers = mvbt("readers", file.toString(), "--clear-stale");
            assertEquals(0, status(readers), output(readers));
            assertTrue(output(readers).contains("cleared 0 stale slots"), output(readers));
            String line = output(readers).lines().filter(l -> l.contains("snapshot")).findFirst().orElseThrow();
            assertTrue(line.contains(Long.toString(ProcessHandle.current().pid())), line);
            assertTrue(line.contains(" " + held.revision() + " "), line);
        }
    }

    @Test
    void dumpLoadAndCopyRoundTripExactlyBetweenPageSizes() throws IOException {
        Path file = sampleStore();
        Path dump = dir.resolve("a.dump");
        assertEquals(0, status(mvbt("dump", file.toString(), "-o", dump.toString())));
        Path loaded = dir.resolve("loaded.mvbt");
        assertEquals(0, status(mvbt("load", dump.toString(), loaded.toString(), "--page-size", "8192")));
        Path copied = dir.resolve("copied.mvbt");
        assertEquals(0, status(mvbt("copy", loaded.toString(), copied.toString(), "--page-size", "65536")));
        Path again = dir.resolve("b.dump");
        assertEquals(0, status(mvbt("dump", copied.toString(), "-o", again.toString())));
        assertArrayEquals(Files.readAllBytes(dump), Files.readAllBytes(again));
        assertEquals(0, status(mvbt("check", copied.toString())));
        assertTrue(output(mvbt("stat", copied.toString())).contains("page size 65,536"));
        assertFalse(Files.exists(dir.resolve("copied.mvbt.partial")));
    }

    @Test
    void compactMovesThePagesDownInPlaceAndStatAndCheckDoNot() throws IOException {
        Path file = dir.resolve("spread.mvbt");
        StoreOptions spread = StoreOptions.defaults().durability(Durability.NORMAL).compactAtClose(false);
        try (Store store = Store.open(file, spread)) {
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 40_000; i += 500) {
                    try (WriteTxn tx = store.beginWrite()) {
                        Tree t = tx.createTreeIfAbsent("t");
                        for (int j = i; j < i + 500; j++) {
                            tx.put(t, ByteBuffer.allocate(4).putInt(j * 7919 % 40_000).array(), new byte[60 + round]);
                        }
                        tx.commit();
                    }
                }
            }
            try (WriteTxn tx = store.beginWrite()) {
                tx.deleteRange(store.tree("t"), new byte[] {0}, ByteBuffer.allocate(4).putInt(30_000).array());
                tx.commit();
            }
        }
        Path dump = dir.resolve("before.dump");
        assertEquals(0, status(mvbt("dump", file.toString(), "-o", dump.toString())));
        long before = Files.size(file);
        assertEquals(0, status(mvbt("stat", file.toString())));
        assertEquals(0, status(mvbt("check", file.toString())));
        assertEquals(before, Files.size(file), "stat and check leave the pages where they are");
        try (Store writer = Store.open(file)) {
            Object[] refused = mvbt("compact", file.toString());
            assertEquals(ExitCodes.CANNOT_OPEN, status(refused), output(refused));
            assertEquals(before, Files.size(file));
        }
        Object[] compact = mvbt("compact", file.toString());
        assertEquals(0, status(compact), output(compact));
        assertTrue(Files.size(file) < before / 2, before + " bytes before, " + Files.size(file) + " after");
        assertEquals(0, status(mvbt("check", file.toString())));
        Path again = dir.resolve("after.dump");
        assertEquals(0, status(mvbt("dump", file.toString(), "-o", again.toString())));
        assertArrayEquals(Files.readAllBytes(dump), Files.readAllBytes(again));
    }

    @Test
    void aShadowedWritersStoreIsReadWithItsShadowDirectory() throws IOException {
        Path file = dir.resolve("shadowed.mvbt");
        Path shadows = Files.createDirectory(dir.resolve("shadows"));
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL).shadowDirectory(shadows);
        try (Store writer = Store.open(file, options)) {
            try (WriteTxn tx = writer.beginWrite()) {
                Tree t = tx.createTree("t");
                for (int i = 0; i < 1_000; i++) {
                    tx.put(t, ByteBuffer.allocate(4).putInt(i).array(), new byte[10]);
                }
                tx.commit();
            }
            Object[] without = mvbt("stat", file.toString());
            assertEquals(ExitCodes.CANNOT_OPEN, status(without), output(without));
            for (String[] args : new String[][] {{"--shadow-dir", shadows.toString(), "stat", file.toString()},
                    {"stat", file.toString(), "--shadow-dir", shadows.toString()}}) {
                Object[] with = mvbt(args);
                assertEquals(0, status(with), output(with));
                assertTrue(output(with).contains("entries 1,000"), output(with));
            }
            Object[] check = mvbt("check", "--shadow-dir", shadows.toString(), file.toString());
            assertEquals(0, status(check), output(check));
        }
        Object[] after = mvbt("stat", file.toString());
        assertEquals(0, status(after), "closed, the writer left every page in the file: " + output(after));
    }

    @Test
    void aMalformedDumpNamesItsLineAndCreatesNothing() throws IOException {
        Path file = sampleStore();
        Path dump = dir.resolve("a.dump");
        assertEquals(0, status(mvbt("dump", file.toString(), "-o", dump.toString())));
        String text = Files.readString(dump);
        String[][] damages = {
            {text.replaceFirst("\n[0-9a-f]+=", "\nzz="), "line 3: not hex"},
            {text.substring(0, text.lastIndexOf('\n', text.length() / 2) + 1), "truncated"},
            {text.replace("end-dump 2", "end-dump 3"), "says 3 trees"},
        };
        for (String[] damage : damages) {
            Path bad = dir.resolve("bad.dump");
            Files.writeString(bad, damage[0]);
            Path target = dir.resolve("never.mvbt");
            PrintStream savedErr = System.err;
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            try {
                assertEquals(ExitCodes.FAILED, status(mvbt("load", bad.toString(), target.toString())));
            } finally {
                System.setErr(savedErr);
            }
            assertTrue(err.toString(StandardCharsets.UTF_8).contains(damage[1]), err.toString(StandardCharsets.UTF_8));
            assertFalse(Files.exists(target));
            assertFalse(Files.exists(dir.resolve("never.mvbt.partial")));
        }
    }

    @Test
    void refusesMissingStoresAndExistingTargets() {
        Path missing = dir.resolve("missing.mvbt");
        assertEquals(ExitCodes.CANNOT_OPEN, status(mvbt("stat", missing.toString())));
        assertFalse(Files.exists(missing), "stat must not create a store");
        Path file = sampleStore();
        assertEquals(ExitCodes.FAILED, status(mvbt("copy", file.toString(), file.toString())));
        assertEquals(ExitCodes.USAGE, status(mvbt("copy", file.toString())));
    }

    @Test
    void demoRefusesBatchesOfNothing() {
        assertEquals(ExitCodes.USAGE, status(mvbt("demo", "--batch", "0", "--dir", dir.resolve("demo").toString())));
        assertEquals(ExitCodes.USAGE, status(mvbt("demo", "--entries", "0", "--dir", dir.resolve("demo").toString())));
    }

    /** Standard output that cannot be written (a full disk behind {@code > file}) fails the dump instead of exiting 0. */
    @Test
    void aDumpToAnOutputThatFailsFails() {
        Path file = sampleStore();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }
        }, true));
        try {
            assertEquals(ExitCodes.FAILED, Main.run("dump", file.toString()));
        } finally {
            System.setOut(saved);
        }
    }

    /** A file emptied, or whose start was zeroed, is not taken for a new store: nothing is written to it. */
    @Test
    void neverMakesANewStoreOfAnEmptiedOrZeroedFile() throws IOException {
        Path empty = dir.resolve("empty.mvbt");
        Files.createFile(empty);
        for (String command : new String[] {"check", "stat", "dump"}) {
            assertEquals(ExitCodes.CANNOT_OPEN, status(mvbt(command, empty.toString())), command);
            assertEquals(0, Files.size(empty), command + " wrote to the empty file");
        }
        Path file = sampleStore();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.write(new byte[256 << 10]);
        }
        byte[] before = Files.readAllBytes(file);
        // No meta page is left: the tool cannot tell it from a file that never was a store.
        assertEquals(ExitCodes.CANNOT_OPEN, status(mvbt("check", file.toString())));
        assertArrayEquals(before, Files.readAllBytes(file));
    }

    @Test
    void checkReportsDamageWithStatusOne() throws IOException {
        Path file = sampleStore();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            // Garbage over the first pages after the meta slots: the first commit's pages are there.
            byte[] junk = new byte[4096 * 64];
            new Random(1).nextBytes(junk);
            raf.seek(4096 * 4);
            raf.write(junk);
        }
        assertEquals(ExitCodes.DAMAGED, status(mvbt("check", file.toString())));
    }

    /** The copy reads one snapshot, so it holds exactly one committed state while a writer goes on. */
    @Test
    void aStoreWrittenByAnotherNameIsNotReadBeside() throws Exception {
        Path file = sampleStore();
        Path link = Files.createLink(dir.resolve("other-name.mvbt"), file);
        PrintStream savedErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (Store writer = Store.open(file)) {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            for (String command : new String[] {"stat", "check"}) {
                // Its writer would not see a reader by the other name: no read-only fallback.
                assertEquals(ExitCodes.CANNOT_OPEN, status(mvbt(command, link.toString())), command);
            }
        } finally {
            System.setErr(savedErr);
        }
        // Writers that take turns by the other name hold the file's lock shared: a reader's look at
        // it passes, but the tool's own writer has met them and does not read beside them either.
        try (FileChannel channel = FileChannel.open(link, StandardOpenOption.READ);
                FileLock turns = channel.lock(Long.MAX_VALUE - 1, 1, true)) {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(ExitCodes.CANNOT_OPEN, status(mvbt("stat", file.toString())));
        } finally {
            System.setErr(savedErr);
        }
        String said = err.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("another name") && !said.contains("note:"), said);
        assertEquals(ExitCodes.OK, status(mvbt("check", link.toString())), "by either name once the writer is gone");
    }

    @Test
    void aHotCopyIsOneCommittedRevision() throws Exception {
        Path file = dir.resolve("live.mvbt");
        Path target = dir.resolve("backup.mvbt");
        try (Store store = Store.open(file)) {
            Tree tree;
            try (WriteTxn tx = store.beginWrite()) {
                tree = tx.createTree("t");
                tx.commit();
            }
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                // Each commit adds key i and sets "n" to the number of keys: one invariant per revision.
                for (int i = 0; !stop.get(); i++) {
                    try (WriteTxn tx = store.beginWrite()) {
                        tx.put(tree, String.format("k%08d", i).getBytes(), new byte[64]);
                        tx.put(tree, "n".getBytes(), Integer.toString(i + 1).getBytes());
                        tx.commit(Durability.NORMAL);
                    }
                }
            });
            writer.start();
            Thread.sleep(300);
            store.copyTo(target, io.mvbt.revisions.StoreOptions.defaults());
            stop.set(true);
            writer.join();
        }
        try (Store copy = Store.open(target); Snapshot s = copy.beginRead()) {
            Tree t = copy.tree("t");
            int n = Integer.parseInt(new String(s.get(t, "n".getBytes())));
            assertTrue(n > 0);
            assertEquals(n + 1, s.count(t));
            assertTrue(copy.check().ok());
        }
    }
}
