// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static io.mvbt.tools.BackupRestoreTest.backup;
import static io.mvbt.tools.BackupRestoreTest.restore;
import static io.mvbt.tools.CommandsTest.mvbt;
import static io.mvbt.tools.CommandsTest.output;
import static io.mvbt.tools.CommandsTest.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.NamedRevision;
import io.mvbt.revisions.Store;
import io.mvbt.testkit.ChildJava;

/**
 * kill -9 of a backup or a restore at a random moment (a child JVM running the tool): what is on
 * disk afterwards restores to the chain's previous revision or to the new one, never anything else;
 * a re-run of the backup succeeds and the source keeps one name for the chain; a killed restore
 * leaves TARGET as it was or complete.
 */
class BackupCrashTest {
    private static final int ROUNDS = 12;

    @TempDir
    Path dir;

    private static Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>(ChildJava.command());
        command.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Runtime.getRuntime().addShutdownHook(new Thread(child::destroyForcibly));
        return child;
    }

    /** How long a child that was not killed ran, so that kills land anywhere in a run, startup included. */
    private long runMillis = 1_500;

    /** Lets the child run for a random part of a whole run, then kills it; returns whether it was cut short. */
    private boolean killLater(Process child, Random random) throws InterruptedException {
        long started = System.nanoTime();
        // The JVM's start takes about half of a short run: most kills land in the tool's work.
        long delay = runMillis / 3 + random.nextLong(runMillis * 5 / 6 + 1);
        boolean finished = child.waitFor(delay, TimeUnit.MILLISECONDS);
        child.destroyForcibly();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        if (finished) {
            runMillis = (System.nanoTime() - started) / 1_000_000;
        }
        return !finished;
    }

    private static String seedNote(long seed) {
        return "seed " + seed + " (replay: -Dbackup.crash.seed=" + seed + ")";
    }

    private static long seed() {
        String s = System.getProperty("backup.crash.seed");
        return s != null ? Long.parseLong(s) : new Random().nextLong();
    }

    @Test
    void aKilledBackupLeavesTheOldOrTheNewLinkAndARerunSucceeds() throws Exception {
        long seed = seed();
        Random random = new Random(seed);
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        TreeMap<String, TreeMap<String, String>> previous = null;
        int cut = 0;
        int midway = 0;
        int advanced = 0;
        for (int round = 0; round < ROUNDS; round++) {
            try (Store store = Store.open(source)) {
                BackupHistories.change(store, random, round == 0 ? 30_000 : 3_000);
            }
            TreeMap<String, TreeMap<String, String>> now = BackupHistories.contents(source);
            Process child = start("backup", source.toString(), dest.toString());
            cut += killLater(child, random) ? 1 : 0;
            Path target = dir.resolve("after-kill-" + round + ".mvbt");
            Object[] r = mvbt("restore", dest.toString(), target.toString());
            try (Store store = Store.open(source)) {
                // A kill between naming the new link and releasing the old one leaves two names.
                midway += store.namedRevisions().size() > 1 ? 1 : 0;
            }
            if (status(r) == ExitCodes.OK) {
                TreeMap<String, TreeMap<String, String>> got = BackupHistories.contents(target);
                advanced += got.equals(now) && !now.equals(previous) ? 1 : 0;
                assertTrue(got.equals(now) || got.equals(previous), "round " + round + ": the restore is neither the "
                        + "previous link nor the new one; " + seedNote(seed));
            } else {
                // Only a first backup can leave no chain to restore.
                assertEquals(null, previous, "round " + round + ": " + output(r) + "; " + seedNote(seed));
            }
            backup(source, dest);
            Path rerun = dir.resolve("rerun-" + round + ".mvbt");
            restore(dest, rerun);
            assertEquals(now, BackupHistories.contents(rerun), "round " + round + "; " + seedNote(seed));
            try (Store store = Store.open(source)) {
                long names = store.namedRevisions().stream().map(NamedRevision::name)
                        .filter(n -> n.startsWith("backup:")).count();
                assertEquals(1, names, "round " + round + ": the chain keeps one name; " + seedNote(seed));
            }
            previous = now;
        }
        System.out.printf("backup kills: %d of %d children killed before they finished, %d left two names, %d the new"
                + " link; %s%n", cut, ROUNDS, midway, advanced, seedNote(seed));
    }

    @Test
    void aKilledRestoreLeavesTargetAsItWasOrComplete() throws Exception {
        long seed = seed();
        Random random = new Random(seed);
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        List<TreeMap<String, TreeMap<String, String>>> links = new ArrayList<>();
        for (int link = 0; link < 4; link++) {
            try (Store store = Store.open(source)) {
                BackupHistories.change(store, random, link == 0 ? 30_000 : 8_000);
            }
            backup(source, dest);
            links.add(BackupHistories.contents(source));
        }
        Path target = dir.resolve("target.mvbt");
        TreeMap<String, TreeMap<String, String>> before = null;
        int cut = 0;
        for (int round = 0; round < ROUNDS; round++) {
            List<String> args = new ArrayList<>(List.of("restore", dest.toString(), target.toString()));
            if (before != null) {
                args.add("--force");
            }
            Process child = start(args.toArray(String[]::new));
            cut += killLater(child, random) ? 1 : 0;
            if (Files.exists(target)) {
                TreeMap<String, TreeMap<String, String>> got = BackupHistories.contents(target);
                assertTrue(got.equals(links.get(3)) || got.equals(before), "round " + round + "; " + seedNote(seed));
            } else {
                assertEquals(null, before, seedNote(seed));
            }
            restore(dest, target, "--force");
            assertEquals(links.get(3), BackupHistories.contents(target), seedNote(seed));
            before = links.get(3);
        }
        System.out.printf("restore kills: %d of %d children killed before they finished, %s%n", cut, ROUNDS,
                seedNote(seed));
    }
}
