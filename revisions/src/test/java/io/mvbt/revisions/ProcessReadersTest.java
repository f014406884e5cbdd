// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.ReadOnlyStoreException;
import io.mvbt.StorageException;

/**
 * Readers in other processes (real child JVMs, {@link ReaderChild}) beside a writer in this one:
 * they see whole commits only and follow new ones as the file grows; a killed reader's pinned
 * revision is released; a read-only store never writes its file.
 */
class ProcessReadersTest {
    static final int FIXED = 100;
    static final int CHURN = 300;
    static final int CHURN_VALUE = 3_000;

    @TempDir
    Path dir;

    static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] churnKey(long round) {
        return String.format("c%012d", round).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Commit {@code round}: every key of "fixed" holds the round; "churn" holds the rounds
     * {@code round - CHURN + 1 .. round} (those above 0), each a value of {@link #CHURN_VALUE} bytes
     * starting with its round, so the store grows and pages are freed and reused all the time.
     */
    static void commit(Store store, long round) {
        try (WriteTxn tx = store.beginWrite()) {
            write(tx, round);
            tx.commit();
        }
    }

    /** Writes commit {@code round} in {@code tx} (see {@link #commit}). */
    static void write(WriteTxn tx, long round) {
        Tree fixed = tx.createTreeIfAbsent("fixed");
        Tree churn = tx.createTreeIfAbsent("churn");
        byte[] v = ByteBuffer.allocate(8).putLong(round).array();
        for (int i = 0; i < FIXED; i++) {
            tx.put(fixed, key(i), v);
        }
        if (round > 0) {
            tx.put(churn, churnKey(round), ByteBuffer.allocate(CHURN_VALUE).putLong(round).array());
            if (round - CHURN > 0 && !tx.delete(churn, churnKey(round - CHURN))) {
                throw new AssertionError("round " + (round - CHURN) + " was missing at round " + round);
            }
        }
    }

    /** The round the newest revision seen by {@code view} holds, or -1 for an empty store. */
    static long round(ReadView view, Tree fixed) {
        byte[] v = view.get(fixed, key(0));
        return v == null ? -1 : ByteBuffer.wrap(v).getLong();
    }

    /** Checks a snapshot against the invariant of {@link #commit}; returns its round. */
    static long verify(Snapshot s, Tree fixed, Tree churn) {
        byte[] first = s.get(fixed, key(0));
        long round = ByteBuffer.wrap(first).getLong();
        if (s.count(fixed) != FIXED) {
            throw new AssertionError("fixed has " + s.count(fixed) + " keys at round " + round);
        }
        for (int i = 0; i < FIXED; i++) {
            byte[] v = s.get(fixed, key(i));
            if (v == null || ByteBuffer.wrap(v).getLong() != round) {
                throw new AssertionError("key " + i + " is not at round " + round + " in revision " + s.revision());
            }
        }
        long expected = Math.min(round, CHURN);
        long seen = 0;
        long next = round - expected + 1;
        try (Cursor c = s.cursor(churn)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                byte[] value = c.valueBytes();
                if (!java.util.Arrays.equals(c.keyBytes(), churnKey(next)) || value.length != CHURN_VALUE
                        || ByteBuffer.wrap(value).getLong() != next) {
                    throw new AssertionError("churn entry " + seen + " is not round " + next + " at round " + round);
                }
                next++;
                seen++;
            }
        }
        if (seen != expected || s.count(churn) != expected) {
            throw new AssertionError("churn has " + seen + " entries, count " + s.count(churn) + ", at round " + round
                    + "; expected " + expected);
        }
        return round;
    }

    private static StoreOptions normal() {
        return StoreOptions.defaults().durability(Durability.NORMAL).checkpointInterval(Duration.ofMillis(50));
    }

    private Process startChild(String... args) throws IOException {
        return ChildJvm.start(null, ReaderChild.class, args);
    }

    private static String output(Process p) throws IOException, InterruptedException {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child did not end");
        return out;
    }

    @Test
    void readerProcessesSeeWholeCommitsAndFollowTheWriter() throws Exception {
        Path path = dir.resolve("shared.mvbt");
        int readers = 3;
        int seconds = Integer.getInteger("mvbt.processReaders.seconds", 4);
        try (Store store = Store.open(path, normal())) {
            commit(store, 0);
            long pagesBefore = store.stats().pagesInFile();
            List<Process> children = new ArrayList<>();
            for (int i = 0; i < readers; i++) {
                children.add(startChild("verify", path.toString(), Integer.toString(seconds)));
            }
            long round = 0;
            while (children.stream().anyMatch(Process::isAlive)) {
                commit(store, ++round);
            }
            for (Process child : children) {
                String out = output(child);
                assertEquals(0, child.exitValue(), out);
                String[] words = out.trim().split("\\s+");
                assertEquals("OK", words[0], out);
                long revisions = Long.parseLong(words[2]);
                long lastRound = Long.parseLong(words[3]);
                System.out.printf("reader pid %d: %s snapshots, %d revisions, last round %d of %d%n", child.pid(),
                        words[1], revisions, lastRound, round);
                assertTrue(revisions >= 10, "the reader followed only " + revisions + " revisions: " + out);
            }
            assertTrue(store.stats().pagesInFile() > pagesBefore, "the file grew while readers followed it");
            assertTrue(store.readers().stream().noneMatch(r -> !r.checkpoint()), "every reader slot was released");
            CheckReport report = store.check();
            assertTrue(report.problems().isEmpty(), report.problems().toString());
        }
    }

    @Test
    void aKilledReaderReleasesItsRevision() throws Exception {
        Path path = dir.resolve("killed.mvbt");
        // Synced commits: the durable revision pins nothing, so the pages waiting are the reader's alone.
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            for (int r = 0; r <= 10; r++) {
                commit(store, r);
            }
            Process child = startChild("hold", path.toString());
            String[] holding = ChildJvm.firstLine(child, "HOLDING");
            long held = Long.parseLong(holding[1]);
            assertEquals(10, Long.parseLong(holding[2]), "the child read the newest round");
            for (int r = 11; r <= 400; r++) {
                commit(store, r);
            }
            ReaderInfo info = store.readers().stream().filter(i -> i.pid() == child.pid()).findFirst().orElseThrow();
            assertEquals(held, info.revision());
            assertFalse(info.stale());
            long waiting = store.stats().pagesWaitingForReaders();
            assertTrue(waiting > 0, "the child's revision pins freed pages");

            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertTrue(store.readers().stream().anyMatch(i -> i.pid() == child.pid() && i.stale()),
                    "the dead reader's slot is reported stale");
            Thread.sleep(1_100);
            // The writer looks at the clock every 64 transactions, and clears stale slots once a second.
            for (int r = 401; r <= 470; r++) {
                commit(store, r);
            }
            assertTrue(store.readers().stream().noneMatch(i -> i.pid() == child.pid()),
                    "the writer cleared the dead reader's slot by itself");
            commit(store, 471);
            assertEquals(0, store.stats().pagesWaitingForReaders(), "pages pinned by the dead reader were released");
            CheckReport report = store.check();
            assertTrue(report.problems().isEmpty(), report.problems().toString());
        }
    }

    @Test
    void aReadOnlyStoreNeverWritesItsFile() throws Exception {
        Path path = dir.resolve("ro.mvbt");
        try (Store store = Store.open(path, normal())) {
            for (int r = 0; r <= 50; r++) {
                commit(store, r);
            }
        }
        byte[] before = Files.readAllBytes(path);
        long modified = Files.getLastModifiedTime(path).toMillis();
        try (Store ro = Store.openReadOnly(path)) {
            assertTrue(ro.isReadOnly());
            try (Snapshot s = ro.beginRead()) {
                assertEquals(50, verify(s, ro.tree("fixed"), ro.tree("churn")));
            }
            CheckReport report = ro.check();
            assertTrue(report.problems().isEmpty(), report.problems().toString());
            assertThrows(ReadOnlyStoreException.class, ro::beginWrite);
            assertThrows(ReadOnlyStoreException.class, ro::sync);
        }
        assertArrayEquals(before, Files.readAllBytes(path), "the store file is unchanged");
        assertEquals(modified, Files.getLastModifiedTime(path).toMillis());
        assertThrows(StorageException.class, () -> Store.openReadOnly(dir.resolve("missing.mvbt")));
    }

    @Test
    void aWriterReopenedBesideAnOldSnapshotReusesNoPageItReaches() {
        Path path = dir.resolve("reopen.mvbt");
        try (Store writer = Store.open(path, normal())) {
            for (int r = 0; r <= 20; r++) {
                commit(writer, r);
            }
        }
        try (Store ro = Store.openReadOnly(path); Snapshot old = ro.beginRead()) {
            Tree fixed = ro.tree("fixed");
            Tree churn = ro.tree("churn");
            // The writer goes away and comes back while the snapshot stays open.
            for (int session = 0; session < 3; session++) {
                try (Store writer = Store.open(path, normal())) {
                    for (int r = 0; r < 200; r++) {
                        commit(writer, 21 + session * 200 + r);
                    }
                }
                assertEquals(20, verify(old, fixed, churn), "the old snapshot still reads its revision");
            }
            try (Snapshot fresh = ro.beginRead()) {
                assertEquals(620, verify(fresh, fixed, churn));
            }
        }
    }
}
