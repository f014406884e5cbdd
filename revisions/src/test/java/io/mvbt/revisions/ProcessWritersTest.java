// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;
import io.mvbt.StoreLockedException;
import io.mvbt.WriteTimeoutException;

/**
 * Writers in several processes that take turns, one transaction at a time (real child JVMs,
 * {@link WriterChild}): every transaction starts from the newest commit whichever process made it,
 * and a writer killed in its transaction or while committing leaves the lock and nothing durable lost.
 */
class ProcessWritersTest {
    @TempDir
    Path dir;

    private Process startChild(String... args) throws IOException {
        return ChildJvm.start(null, WriterChild.class, args);
    }

    private Process startChild(Path log, String... args) throws IOException {
        return ChildJvm.start(log, WriterChild.class, args);
    }

    private static String read(Path log) {
        try {
            return java.nio.file.Files.exists(log) ? java.nio.file.Files.readString(log) : "";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The last round the child said it committed, or -1. */
    private static long lastCommitted(Path log) {
        long last = -1;
        for (String line : read(log).split("\n")) {
            if (line.startsWith("committed ")) {
                last = Long.parseLong(line.substring("committed ".length()).trim());
            } else if (!line.isBlank()) {
                throw new AssertionError("the child said: " + read(log));
            }
        }
        return last;
    }

    private static String output(Process p, long seconds) throws IOException, InterruptedException {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), "child did not end");
        return out;
    }

    /** The round of the newest revision, its whole content checked. */
    private static long verifiedRound(Store store) {
        try (Snapshot s = store.beginRead()) {
            return ProcessReadersTest.verify(s, store.tree("fixed"), store.tree("churn"));
        }
    }

    private static void assertClean(Store store) {
        CheckReport report = store.check();
        assertTrue(report.problems().isEmpty(), report.problems().toString());
    }

    @Test
    void twoProcessesTakeTurnsWritingBesideAReader() throws Exception {
        Path path = dir.resolve("turns.mvbt");
        int seconds = Integer.getInteger("mvbt.processWriters.seconds", 5);
        List<Process> children = List.of(
                startChild("turns", path.toString(), "NORMAL", Integer.toString(seconds)),
                startChild("turns", path.toString(), "SYNC", Integer.toString(seconds)));
        // This process reads beside them, as a reader process would.
        long readerSnapshots = 0;
        long lastRound = -1;
        while (children.stream().anyMatch(Process::isAlive)) {
            if (!java.nio.file.Files.exists(path) || java.nio.file.Files.size(path) == 0) {
                Thread.sleep(10);
                continue;
            }
            try (Store ro = Store.openReadOnly(path)) {
                for (int i = 0; i < 200 && children.stream().anyMatch(Process::isAlive); i++) {
                    try (Snapshot s = ro.beginRead()) {
                        if (s.revision() == 0) {
                            continue;
                        }
                        long round = ProcessReadersTest.verify(s, ro.tree("fixed"), ro.tree("churn"));
                        assertTrue(round >= lastRound, "went back from round " + lastRound + " to " + round);
                        lastRound = round;
                        readerSnapshots++;
                    }
                }
            } catch (CorruptionException e) {
                // The first writer may not have written the store's first meta yet.
                assertTrue(lastRound < 0, e.toString());
            }
        }
        long commits = 0;
        for (Process child : children) {
            String out = output(child, 60);
            assertEquals(0, child.exitValue(), out);
            String[] words = out.trim().split("\\s+");
            assertEquals("OK", words[0], out);
            System.out.printf("writer pid %d: %s commits, %s snapshots verified%n", child.pid(), words[1], words[2]);
            assertTrue(Long.parseLong(words[1]) > 0, out);
            commits += Long.parseLong(words[1]);
        }
        try (Store store = Store.open(path, WriterChild.options(Durability.SYNC))) {
            // Round 0 was the first commit: no transaction started from a stale revision.
            assertEquals(commits - 1, verifiedRound(store), "every commit of both processes counted once");
            StoreStats stats = store.stats();
            System.out.printf("%d commits in turns, %d snapshots read beside them; %d pages in the file, %d in use%n",
                    commits, readerSnapshots, stats.pagesInFile(), stats.pagesInUse());
            // Free pages are reused across processes: the file does not grow with the number of commits.
            assertTrue(stats.pagesInFile() <= 2 * stats.pagesInUse() + 512, stats.toString());
            assertClean(store);
        }
    }

    @Test
    void aWriterKilledInItsTransactionLeavesTheLockAndNothingDurableLost() throws Exception {
        Path path = dir.resolve("stall.mvbt");
        StoreOptions options = WriterChild.options(Durability.SYNC);
        try (Store store = Store.open(path, options)) {
            for (int i = 0; i < 20; i++) {
                WriterChild.commitNext(store);
            }
            assertThrows(StoreLockedException.class, () -> Store.open(path, options),
                    "one store of a file per JVM, even when writers take turns");
            Process child = startChild("stall", path.toString());
            long inside = Long.parseLong(ChildJvm.firstLine(child, "INSIDE")[1]);
            assertEquals(21, inside, "the child committed round 20 after this process's rounds 0 to 19");

            WriteTimeoutException waited = assertThrows(WriteTimeoutException.class,
                    () -> store.beginWrite(Duration.ofMillis(300)));
            assertTrue(waited.getMessage().contains("pid " + child.pid()), waited.getMessage());
            try (Snapshot s = store.beginRead()) {
                assertEquals(20, ProcessReadersTest.round(s, store.tree("fixed")), "the child's commit is visible");
            }

            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(21, WriterChild.commitNext(store), "the killed transaction left nothing");
            for (int i = 0; i < 50; i++) {
                WriterChild.commitNext(store);
            }
            assertEquals(71, verifiedRound(store));
            assertClean(store);
        }
    }

    @Test
    void aWriterKilledWhileCommittingLosesNoCommitThatReturned() throws Exception {
        Path path = dir.resolve("killed.mvbt");
        StoreOptions options = WriterChild.options(Durability.NORMAL);
        try (Store store = Store.open(path, options)) {
            WriterChild.commitNext(store);
            for (int run = 0; run < 3; run++) {
                // The child's output goes to a file: what it printed before the kill is all there.
                Path log = dir.resolve("loop" + run + ".log");
                Process child = startChild(log, "loop", path.toString());
                long deadline = System.nanoTime() + ThreadLocalRandom.current().nextLong(300, 1_000) * 1_000_000L;
                long mine = 0;
                while (System.nanoTime() < deadline || lastCommitted(log) < 0) {
                    // Both write: this process's turns come between the child's.
                    WriterChild.commitNext(store);
                    mine++;
                    Thread.sleep(1);
                    assertTrue(child.isAlive(), () -> "the child died: " + read(log));
                }
                child.destroyForcibly();
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                long returned = lastCommitted(log);
                long next = WriterChild.commitNext(store);
                assertTrue(next > returned, "round " + next + " follows the child's last commit " + returned);
                System.out.printf("run %d: the child's last commit %d, this process %d commits, next round %d%n",
                        run, returned, mine, next);
                assertEquals(next, verifiedRound(store));
                assertClean(store);
            }
        }
    }

    @Test
    void soleAndSharedWritersExcludeEachOther() {
        Path path = dir.resolve("modes.mvbt");
        try (Store shared = Store.open(path, WriterChild.options(Durability.SYNC))) {
            WriterChild.commitNext(shared);
        }
        try (Store sole = Store.open(path)) {
            StoreLockedException e = assertThrows(StoreLockedException.class,
                    () -> Store.open(path, WriterChild.options(Durability.SYNC)));
            assertTrue(e.getMessage().contains("already open for writing in this JVM"), e.getMessage());
        }
    }
}
