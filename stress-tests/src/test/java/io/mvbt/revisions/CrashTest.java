// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.testkit.ChildJava;
import io.mvbt.testkit.Profile;

/**
 * A child JVM commits in a loop and is killed with SIGKILL at random moments. After each kill the
 * store opens, passes the integrity check, holds every commit the child reported, and equals
 * exactly the state of one commit (no partial commit). Kills per durability mode: 25 in the short
 * profile (100 in all: NORMAL through the mapping and with a shadow, SYNC without and with a redo
 * log), 1,000 in the long one, or {@code -Dmvbt.crash.kills=N}.
 */
class CrashTest {
    /** What the last child printed besides its progress lines. */
    private static final StringBuilder OTHER_OUTPUT = new StringBuilder();
    @TempDir
    Path dir;

    @Test
    void syncCommitsSurviveKills() throws Exception {
        killRepeatedly(Durability.SYNC, dir.resolve("sync.mvbt"), 11);
    }

    @Test
    void normalCommitsSurviveKills() throws Exception {
        killRepeatedly(Durability.NORMAL, dir.resolve("normal.mvbt"), 12);
    }

    /** NORMAL commits of a writer that keeps its pages in a shadow until their checkpoint. */
    @Test
    void shadowedNormalCommitsSurviveKills() throws Exception {
        Path shadows = java.nio.file.Files.createDirectories(dir.resolve("shm"));
        killRepeatedly(Durability.NORMAL, dir.resolve("shadowed.mvbt"), 13, shadows);
    }

    /**
     * SYNC commits of a writer with a redo log; each reopen (without the option) replays what the log
     * holds past the newest meta and deletes the log.
     */
    @Test
    void loggedSyncCommitsSurviveKills() throws Exception {
        killRepeatedly(Durability.SYNC, dir.resolve("logged.mvbt"), 14, null, true);
    }

    /**
     * Every tenth commit retains its revision and releases the one fifty commits older: after each
     * kill exactly the names of the commits the store holds are there, each reading as its commit
     * left the store, though the commits since rewrote and freed what they reach.
     */
    @Test
    void namedRevisionsSurviveKills() throws Exception {
        killRepeatedly(Durability.NORMAL, dir.resolve("named.mvbt"), 15, null, false, true);
    }

    @Test
    void namedRevisionsOfALoggingWriterSurviveKills() throws Exception {
        killRepeatedly(Durability.NORMAL, dir.resolve("named-logged.mvbt"), 16, null, true, true);
    }

    private void killRepeatedly(Durability durability, Path path, long seed) throws Exception {
        killRepeatedly(durability, path, seed, null, false);
    }

    private void killRepeatedly(Durability durability, Path path, long seed, Path shadows) throws Exception {
        killRepeatedly(durability, path, seed, shadows, false);
    }

    private void killRepeatedly(Durability durability, Path path, long seed, Path shadows, boolean redoLog)
            throws Exception {
        killRepeatedly(durability, path, seed, shadows, redoLog, false);
    }

    private void killRepeatedly(Durability durability, Path path, long seed, Path shadows, boolean redoLog,
            boolean named) throws Exception {
        int kills = Profile.size("mvbt.crash.kills", 25, 1000);
        Random random = new Random(seed);
        long previous = 0;
        // The model follows the store commit by commit, so that no kill replays the whole history.
        java.util.TreeMap<byte[], byte[]> model = CrashWorkload.model(0);
        for (int k = 0; k < kills; k++) {
            long reported = runAndKill(path, durability, 30 + random.nextInt(400), random.nextBoolean() ? 5 : 200,
                    shadows, redoLog, named);
            assertTrue(!redoLog || RedoFiles.present(path), "kill " + k + ": the child left no redo log");
            try (Store store = Store.open(path, StoreOptions.defaults().shadowDirectory(shadows))) {
                store.check().throwIfDamaged();
                Tree tree = store.tree(CrashWorkload.TREE);
                try (Snapshot s = store.beginRead()) {
                    long found = CrashWorkload.counter(s, tree);
                    // The child may have committed once more than it managed to report.
                    assertTrue(found == reported || found == reported + 1, "kill " + k + ": child reported "
                            + reported + ", store holds commit " + found + "; child output: " + OTHER_OUTPUT);
                    assertTrue(found >= previous, "commits went backwards");
                    for (long i = previous + 1; i <= found; i++) {
                        CrashWorkload.apply(i, null, null, model);
                    }
                    assertNull(CrashWorkload.difference(s, tree, model), "kill " + k + ": store is not exactly commit "
                            + found);
                    previous = found;
                }
                if (named) {
                    checkNamed(store, tree, found(store, tree), k);
                }
            }
            assertTrue(!RedoFiles.present(path), "the redo log outlived its replay");
        }
        assertTrue(previous > kills, "the child committed too little to test anything: " + previous);
        System.out.println("process kills (" + durability + "): " + kills + " kills, " + previous
                + " commits checked, 0 failures");
    }

    private static long found(Store store, Tree tree) {
        try (Snapshot s = store.beginRead()) {
            return CrashWorkload.counter(s, tree);
        }
    }

    /** The names of the commits {@code found} holds are there, exactly, each reading as its commit left the store. */
    private static void checkNamed(Store store, Tree tree, long found, int kill) {
        List<String> expected = new ArrayList<>();
        for (long i = Math.max(CrashChild.NAMED_EVERY, found - CrashChild.NAMED_WINDOW + 1); i <= found; i++) {
            if (i % CrashChild.NAMED_EVERY == 0) {
                expected.add(CrashChild.name(i));
            }
        }
        List<String> names = new ArrayList<>();
        for (NamedRevision n : store.namedRevisions()) {
            names.add(n.name());
        }
        java.util.Collections.sort(expected);
        assertTrue(expected.equals(names), "kill " + kill + " at commit " + found + ": names " + names + ", expected "
                + expected);
        for (String name : expected) {
            long i = Long.parseLong(name.substring("commit-".length()));
            try (Snapshot s = store.beginRead(name)) {
                assertNull(CrashWorkload.difference(s, tree, CrashWorkload.model(i)), "kill " + kill + ": named "
                        + "revision " + name + " is not commit " + i);
            }
        }
    }

    /** Starts the child, kills it {@code millis} after it is ready, returns the last commit it reported. */
    private static long runAndKill(Path path, Durability durability, int millis, int checkpointMillis,
            Path shadows, boolean redoLog, boolean named) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(ChildJava.command());
        command.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"),
                CrashChild.class.getName(), path.toString(), durability.name(), Integer.toString(checkpointMillis)));
        if (shadows != null) {
            command.add(shadows.toString());
        }
        if (redoLog) {
            command.add("--redo-log");
        }
        if (named) {
            command.add("--named");
        }
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        AtomicLong last = new AtomicLong(-1);
        StringBuilder other = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null;) {
                    if (line.matches("committed \\d+")) {
                        last.set(Long.parseLong(line.substring(10)));
                    } else if (line.matches("ready \\d+")) {
                        last.compareAndSet(-1, Long.parseLong(line.substring(6)));
                        synchronized (last) {
                            last.notifyAll();
                        }
                    } else {
                        other.append(line).append('\n');
                    }
                }
            } catch (IOException e) {
                // The child died: the stream ends.
            }
        });
        reader.start();
        synchronized (last) {
            long deadline = System.currentTimeMillis() + 30_000;
            while (last.get() < 0 && child.isAlive() && System.currentTimeMillis() < deadline) {
                last.wait(100);
            }
        }
        assertTrue(child.isAlive(), "child died on its own: " + other);
        Thread.sleep(millis);
        // Through the handle: Process.destroyForcibly() would also close the pipe and lose unread lines.
        child.toHandle().destroyForcibly();
        child.waitFor(30, TimeUnit.SECONDS);
        reader.join(10_000);
        synchronized (OTHER_OUTPUT) {
            OTHER_OUTPUT.setLength(0);
            OTHER_OUTPUT.append(other);
        }
        return last.get();
    }
}
