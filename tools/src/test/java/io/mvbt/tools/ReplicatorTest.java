// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.ChangeFeed;
import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.FeedVisitor;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;
import io.mvbt.testkit.ChildJava;

/** The replicator keeps a second store equal to the first while it takes writes, and resumes after a stop or a kill. */
class ReplicatorTest {
    private static final String[] TREES = {"alpha", "beta", "gamma", "delta"};

    @TempDir
    Path dir;

    private static StoreOptions sourceOptions(boolean shared) {
        return StoreOptions.defaults().durability(Durability.NORMAL).sharedWriters(shared)
                .checkpointInterval(Duration.ofMillis(50)).writeTimeout(Duration.ofSeconds(30));
    }

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** One commit of a few random operations: puts (some values in overflow pages), deletes, range deletes, tree create and drop. */
    static void randomCommit(Store store, Random random) {
        try (WriteTxn tx = store.beginWrite()) {
            int ops = 1 + random.nextInt(20);
            for (int i = 0; i < ops; i++) {
                String name = TREES[random.nextInt(TREES.length)];
                int roll = random.nextInt(100);
                if (roll < 2) {
                    tx.dropTree(store.tree(name));
                    continue;
                }
                Tree t = tx.createTreeIfAbsent(name);
                if (roll < 60) {
                    byte[] value = new byte[random.nextInt(50) == 0 ? 3000 + random.nextInt(9000) : random.nextInt(60)];
                    random.nextBytes(value);
                    tx.put(t, key(random.nextInt(3000)), value);
                } else if (roll < 95) {
                    tx.delete(t, key(random.nextInt(3000)));
                } else {
                    int from = random.nextInt(3000);
                    tx.deleteRange(t, key(from), key(from + random.nextInt(400)));
                }
            }
            tx.commit();
        }
    }

    /** Fails unless the target holds exactly the source's trees and entries (its own position tree aside). */
    static void assertEqualStores(Store source, Store target) {
        try (Snapshot s = source.beginRead(); Snapshot t = target.beginRead()) {
            List<String> targetTrees = new ArrayList<>(t.treeNames());
            assertTrue(targetTrees.remove(Replicator.POSITION_TREE), "the target records its position");
            assertEquals(s.treeNames(), targetTrees, "trees");
            for (String name : s.treeNames()) {
                try (Cursor a = s.cursor(source.tree(name)); Cursor b = t.cursor(target.tree(name))) {
                    long entries = 0;
                    boolean more = a.first();
                    boolean other = b.first();
                    while (more || other) {
                        assertEquals(more, other, "tree " + name + ": one store has more entries, after " + entries);
                        assertArrayEquals(a.keyBytes(), b.keyBytes(), "tree " + name + ", entry " + entries);
                        assertArrayEquals(a.valueBytes(), b.valueBytes(), "tree " + name + ", value of entry " + entries);
                        entries++;
                        more = a.next();
                        other = b.next();
                    }
                    assertEquals(s.count(source.tree(name)), entries);
                }
            }
        }
    }

    @Test
    void theReplicaEqualsTheSourceAfterRacingAWriter() throws Exception {
        try (Store source = Store.open(dir.resolve("source.mvbt"), sourceOptions(false));
                Store target = Store.open(dir.resolve("target.mvbt"))) {
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                Random random = new Random(4901);
                try {
                    for (int i = 0; i < 4000; i++) {
                        randomCommit(source, random);
                    }
                } catch (Throwable t) {
                    failed.set(t);
                } finally {
                    writing.set(false);
                }
            });
            writer.start();
            Replicator replicator = new Replicator(source, target, "replica");
            int batches = 0;
            while (writing.get()) {
                replicator.replicateOnce();
                batches++;
            }
            writer.join();
            assertNull(failed.get());
            long reached = replicator.replicateOnce();
            assertTrue(batches > 5, "batches taken while the writer ran: " + batches);
            assertEquals(reached, Replicator.recordedRevision(target));
            assertEquals(reached, source.changeFeed("replica").position());
            assertEqualStores(source, target);
            assertEquals(1, source.namedRevisions().size(), "only the feed's position is kept: " + source.namedRevisions());
        }
    }

    @Test
    void aReplicatorStoppedAndStartedAgainResumes() {
        Random random = new Random(4902);
        Path sourceFile = dir.resolve("source.mvbt");
        Path targetFile = dir.resolve("target.mvbt");
        for (int run = 0; run < 3; run++) {
            try (Store source = Store.open(sourceFile, sourceOptions(false)); Store target = Store.open(targetFile)) {
                for (int i = 0; i < 40; i++) {
                    randomCommit(source, random);
                }
                new Replicator(source, target, "replica").replicateOnce();
                assertEqualStores(source, target);
                for (int i = 0; i < 40; i++) {
                    randomCommit(source, random);
                }
            }
        }
        try (Store source = Store.open(sourceFile, sourceOptions(false)); Store target = Store.open(targetFile)) {
            new Replicator(source, target, "replica").replicateOnce();
            assertEqualStores(source, target);
        }
    }

    /** As a crash between the target's commit and the source's move: the same batch again, applied twice, is harmless. */
    @Test
    void aBatchAppliedTwiceLeavesTheReplicaEqual() {
        Random random = new Random(4903);
        try (Store source = Store.open(dir.resolve("source.mvbt"), sourceOptions(false));
                Store target = Store.open(dir.resolve("target.mvbt"))) {
            for (int i = 0; i < 50; i++) {
                randomCommit(source, random);
            }
            Replicator replicator = new Replicator(source, target, "replica");
            long first = replicator.replicateOnce();
            for (int i = 0; i < 50; i++) {
                randomCommit(source, random);
            }
            Replicator dying = new Replicator(source, target, "replica");
            FeedVisitor diesAfterTheTargetCommits = new FeedVisitor() {
                @Override
                public void treeCreated(String tree) {
                    dying.treeCreated(tree);
                }

                @Override
                public void treeDropped(String tree, long entries) {
                    dying.treeDropped(tree, entries);
                }

                @Override
                public void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue) {
                    dying.changed(tree, key, oldValue, newValue);
                }

                @Override
                public void reached(long from, long to) {
                    dying.reached(from, to);
                    throw new IllegalStateException("died before the source moved");
                }
            };
            ChangeFeed feed = source.changeFeed("replica");
            assertThrows(IllegalStateException.class, () -> feed.poll(diesAfterTheTargetCommits));
            long batchEnd = Replicator.recordedRevision(target);
            assertTrue(batchEnd > first, "the target took the batch");
            assertEquals(first, feed.position(), "the source did not move");
            for (int i = 0; i < 50; i++) {
                randomCommit(source, random);
            }
            assertEquals(batchEnd, replicator.replicateOnce(), "the same batch again");
            replicator.replicateOnce();
            assertEqualStores(source, target);
        }
    }

    @Test
    void aTargetThatIsNotTheFeedsReplicaIsRefused() {
        try (Store source = Store.open(dir.resolve("source.mvbt"), sourceOptions(false));
                Store target = Store.open(dir.resolve("target.mvbt"))) {
            randomCommit(source, new Random(1));
            target.update(tx -> tx.put(tx.createTree("own"), new byte[] {1}, new byte[] {2}));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> new Replicator(source, target, "replica").replicateOnce());
            assertTrue(e.getMessage().contains("never took a batch"), e.getMessage());
            assertEquals(ChangeFeed.BEGINNING, source.changeFeed("replica").position(), "the feed did not move");
            try (Snapshot t = target.beginRead()) {
                assertEquals(List.of("own"), t.treeNames(), "nothing was applied");
            }
        }
    }

    @Test
    void replicateOnceCopiesAndRefusesASourceWrittenElsewhere() {
        Path sourceFile = dir.resolve("source.mvbt");
        Path targetFile = dir.resolve("target.mvbt");
        try (Store source = Store.open(sourceFile, sourceOptions(false))) {
            Random random = new Random(4905);
            for (int i = 0; i < 30; i++) {
                randomCommit(source, random);
            }
            Object[] locked = CommandsTest.mvbt("replicate", sourceFile.toString(), targetFile.toString(), "--once");
            assertEquals(ExitCodes.CANNOT_OPEN, CommandsTest.status(locked), CommandsTest.output(locked));
        }
        Object[] once = CommandsTest.mvbt("replicate", sourceFile.toString(), targetFile.toString(), "--once", "--json");
        assertEquals(ExitCodes.OK, CommandsTest.status(once), CommandsTest.output(once));
        assertTrue(CommandsTest.output(once).matches("\\{\"reached\":\\d+,\"changes\":[1-9]\\d*}\n"),
                CommandsTest.output(once));
        try (Store source = Store.open(sourceFile); Store target = Store.open(targetFile)) {
            assertEqualStores(source, target);
        }
    }

    /**
     * The replicate command in a child JVM while a writer in this JVM (shared writers) goes on:
     * stopped with SIGTERM, it finishes its batch and leaves the feed and the target agreeing;
     * killed with SIGKILL, a replicator started afterwards resumes; the stores end equal.
     */
    @Test
    void aStoppedOrKilledReplicateCommandResumes() throws Exception {
        Path sourceFile = dir.resolve("source.mvbt");
        Path targetFile = dir.resolve("target.mvbt");
        Random random = new Random(4904);
        try (Store source = Store.open(sourceFile, sourceOptions(true))) {
            for (int i = 0; i < 20; i++) {
                randomCommit(source, random);
            }
            runReplicateChild(source, sourceFile, targetFile, random, false);
            try (Store target = Store.open(targetFile)) {
                assertEquals(source.changeFeed("replica").position(), Replicator.recordedRevision(target),
                        "stopped by SIGTERM after a whole batch");
            }
            assertEquals(1, source.namedRevisions().size(), source.namedRevisions().toString());

            runReplicateChild(source, sourceFile, targetFile, random, true);
            for (int i = 0; i < 30; i++) {
                randomCommit(source, random);
            }
            try (Store target = Store.open(targetFile)) {
                long recorded = Replicator.recordedRevision(target);
                assertTrue(recorded > 0, "the child replicated before it was killed");
                Replicator replicator = new Replicator(source, target, "replica");
                replicator.replicateOnce();
                replicator.replicateOnce();
                assertEqualStores(source, target);
                assertEquals(1, source.namedRevisions().size(), source.namedRevisions().toString());
            }
        }
    }

    /** Runs {@code mvbt replicate} in a child JVM until it reported 5 batches while {@code source} took writes. */
    private static void runReplicateChild(Store source, Path sourceFile, Path targetFile, Random random, boolean kill)
            throws Exception {
        List<String> command = new ArrayList<>(ChildJava.command());
        command.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "replicate", sourceFile.toString(), targetFile.toString(), "--shared-writers", "--interval", "5"));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            int batches = 0;
            while (batches < 5) {
                randomCommit(source, random);
                if (out.ready()) {
                    String line = out.readLine();
                    assertTrue(line != null && line.startsWith("source revision "), line);
                    batches++;
                }
                assertTrue(child.isAlive(), "the replicator exited early");
            }
            for (int i = 0; i < 30; i++) {
                randomCommit(source, random);
            }
            if (!kill) {
                child.destroy();
                assertTrue(child.waitFor(30, TimeUnit.SECONDS), "SIGTERM stops it");
            }
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
    }
}
