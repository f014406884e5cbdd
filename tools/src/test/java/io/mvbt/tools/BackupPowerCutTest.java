// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static io.mvbt.tools.BackupRestoreTest.backup;
import static io.mvbt.tools.CommandsTest.mvbt;
import static io.mvbt.tools.CommandsTest.output;
import static io.mvbt.tools.CommandsTest.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Durability;
import io.mvbt.revisions.NamedRevision;
import io.mvbt.revisions.Reboot;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.testkit.PowerCutPageStore;
import io.mvbt.testkit.Profile;

/**
 * Power cuts during backup and restore, on a modelled disk ({@link PowerCutFiles}) that keeps only
 * what the tool's fsyncs made durable: before every durable step and after the command returns,
 * states the disk could hold are written out and checked ({@link #states}). A cut during a backup
 * leaves the chain as it was or one link longer (and once the command returned, one link longer),
 * its last link restoring to what the source held at its revision, key by key, and a later backup
 * works; the source is a simulated disk cut at the same moment ({@link PowerCutPageStore}). A cut
 * during a restore leaves TARGET absent, the old store byte for byte, or the complete restored
 * store, never a partial one, and a second restore succeeds. Short profile: {@value #SHORT_LINKS}
 * backups and {@value #SHORT_SAMPLES} states per cut besides the combinations of changed entries;
 * {@code -Dmvbt.profile=long} for more, or {@code -Dmvbt.backup.powercut.links=N},
 * {@code .samples=N}, {@code .entrybits=N}; replay with {@code .seed=S}.
 */
class BackupPowerCutTest {
    private static final int SHORT_LINKS = 4;
    private static final int SHORT_SAMPLES = 5;
    private static final int PAGE_SIZE = 4096;
    /** No background checkpoints: the source's writes all happen in the steps the test cuts between. */
    private static final StoreOptions SOURCE = StoreOptions.defaults().pageSize(PAGE_SIZE).durability(Durability.NORMAL)
            .checkpointInterval(Duration.ofHours(1)).compactAtClose(false);

    @TempDir
    Path dir;

    /**
     * One state to check at a cut: an outcome, and for {@link PowerCutFiles.Outcome#MIXED} which of
     * the first {@code bits} changed directory entries survive (-1: chosen at random).
     */
    private record State(PowerCutFiles.Outcome outcome, long entries, int bits) {
        Path write(PowerCutFiles.Cut cut, Random random, Path into) {
            PowerCutFiles.write(cut, outcome, entries, bits, random, into);
            return into;
        }

        @Override
        public String toString() {
            return outcome + (entries >= 0 ? " entries " + Long.toBinaryString(entries) : "");
        }
    }

    /**
     * All lost, all kept, names without data, every combination of the first few changed directory
     * entries (a missing directory fsync shows in one of them, whose chance by random choice alone
     * is small), then random states up to {@code samples}.
     */
    private static List<State> states(PowerCutFiles.Cut cut, int samples) {
        List<State> out = new ArrayList<>();
        out.add(new State(PowerCutFiles.Outcome.LOST, -1, 0));
        out.add(new State(PowerCutFiles.Outcome.KEPT, -1, 0));
        out.add(new State(PowerCutFiles.Outcome.NAMES_WITHOUT_DATA, -1, 0));
        int bits = Math.min(PowerCutFiles.changedEntries(cut), Profile.size("mvbt.backup.powercut.entrybits", 4, 6));
        for (long entries = 0; entries < 1L << bits; entries++) {
            out.add(new State(PowerCutFiles.Outcome.MIXED, entries, bits));
        }
        for (int i = out.size(); i < samples + (1 << bits); i++) {
            out.add(new State(PowerCutFiles.Outcome.MIXED, -1, 0));
        }
        return out;
    }

    private static long seed() {
        String s = System.getProperty("mvbt.backup.powercut.seed");
        return s != null ? Long.parseLong(s) : new Random().nextLong();
    }

    private static String replay(long seed) {
        return "replay: -Dmvbt.backup.powercut.seed=" + seed;
    }

    private static int samples() {
        return Profile.size("mvbt.backup.powercut.samples", SHORT_SAMPLES, 20);
    }

    @Test
    void aPowerCutDuringABackupLeavesTheChainAsItWasOrOneLinkLonger() throws Exception {
        long seed = seed();
        Random random = new Random(seed);
        int backups = Profile.size("mvbt.backup.powercut.links", SHORT_LINKS, 12);
        int samples = samples();
        Path root = Files.createDirectories(dir.resolve("disk"));
        Path dest = root.resolve("backup");
        PowerCutPageStore disk = new PowerCutPageStore(PAGE_SIZE);
        // What the source held at each link's revision.
        List<TreeMap<String, TreeMap<String, String>>> links = new ArrayList<>();
        int cuts = 0;
        int checked = 0;
        try (Store source = Store.open(disk, SOURCE)) {
            for (int link = 0; link < backups; link++) {
                BackupHistories.change(source, random, link == 0 ? 2_000 : 400);
                // Its writer closed the store before the backup: only the backup's own writes are at stake.
                source.sync();
                links.add(contents(source));
                PowerCutFiles files = new PowerCutFiles(root, () -> {
                    List<byte[]> at = new ArrayList<>();
                    for (int i = 0; i < samples; i++) {
                        at.add(disk.cut(random));
                    }
                    return at;
                });
                BackupCommand.backup(source, dest, null, files);
                files.finish();
                for (PowerCutFiles.Cut cut : files.cuts()) {
                    List<State> states = states(cut, samples);
                    for (int i = 0; i < states.size(); i++) {
                        String where = "backup of link " + link + ", power cut " + cut + ", " + states.get(i) + "; "
                                + replay(seed);
                        checkBackupCut(cut, states.get(i), cut.alongside.get(i % samples), links, random, where);
                    }
                    checked += states.size();
                }
                cuts += files.cuts().size();
            }
        }
        System.out.printf("backup power cuts: %d backups, %d cuts, %d disk states checked; %s%n", backups, cuts, checked,
                replay(seed));
    }

    /**
     * One state after a cut during the backup of link {@code links.size() - 1}: the chain has that
     * link or stops before it, restores to what its last link held, and takes a later backup.
     */
    private void checkBackupCut(PowerCutFiles.Cut cut, State state, byte[] sourceImage,
            List<TreeMap<String, TreeMap<String, String>>> links, Random random, String where) throws IOException {
        Path image = state.write(cut, random, dir.resolve("image"));
        Path dest = image.resolve("backup");
        int before = links.size() - 1;
        int found = linksIn(dest);
        assertTrue(found == before || found == before + 1, where + ": the chain has " + found + " links, it had " + before
                + " before this backup");
        if (cut.last) {
            assertEquals(before + 1, found, where + ": the backup returned, its link must survive");
        }
        Path restored = image.resolve("restored.mvbt");
        Object[] r = mvbt("restore", dest.toString(), restored.toString());
        if (found == 0) {
            assertNotEquals(ExitCodes.OK, status(r), where);
            assertFalse(Files.exists(restored), where);
        } else {
            assertEquals(ExitCodes.OK, status(r), where + ": " + output(r));
            assertEquals(links.get(found - 1), BackupHistories.contents(restored), where + ": the chain's last link");
        }
        Reboot.now();
        try (Store source = Store.open(PowerCutPageStore.of(sourceImage, PAGE_SIZE), SOURCE)) {
            try {
                BackupCommand.backup(source, dest, null, DurableFiles.DISK);
            } catch (RuntimeException e) {
                throw new AssertionError(where + ": a later backup failed", e);
            }
            Path again = image.resolve("again.mvbt");
            Object[] r2 = mvbt("restore", dest.toString(), again.toString());
            assertEquals(ExitCodes.OK, status(r2), where + ", a later backup: " + output(r2));
            assertEquals(contents(source), BackupHistories.contents(again), where + ", a later backup");
            long names = source.namedRevisions().stream().map(NamedRevision::name).filter(n -> n.startsWith("backup:"))
                    .count();
            assertEquals(1, names, where + ": after a later backup the source keeps one name for the chain");
        }
        delete(image);
    }

    /** Link 0 counts once its record is there; each delta is a link more. */
    private static int linksIn(Path dest) throws IOException {
        if (!Files.exists(dest.resolve(BackupChain.BASE))) {
            return 0;
        }
        try (Stream<Path> files = Files.list(dest)) {
            return 1 + (int) files.filter(p -> p.getFileName().toString().matches("[0-9]{6}\\.delta")).count();
        }
    }

    @Test
    void aPowerCutDuringARestoreLeavesTargetAsItWasOrComplete() throws Exception {
        long seed = seed();
        Random random = new Random(seed);
        int samples = samples();
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        List<Long> revisions = new ArrayList<>();
        List<TreeMap<String, TreeMap<String, String>>> links = new ArrayList<>();
        for (int link = 0; link < 3; link++) {
            try (Store store = Store.open(source)) {
                BackupHistories.change(store, random, link == 0 ? 2_000 : 400);
            }
            revisions.add(backup(source, dest));
            links.add(BackupHistories.contents(source));
        }
        Path root = Files.createDirectories(dir.resolve("disk"));
        Path target = root.resolve("target.mvbt");
        // The full copy alone into a new TARGET, then the whole chain over it, then over that.
        int[] restoreTo = {0, links.size() - 1, links.size() - 1};
        int cuts = 0;
        int checked = 0;
        for (int round = 0; round < restoreTo.length; round++) {
            int link = restoreTo[round];
            byte[] old = Files.exists(target) ? Files.readAllBytes(target) : null;
            PowerCutFiles files = new PowerCutFiles(root, null);
            RestoreCommand restore = new RestoreCommand();
            restore.dest = dest;
            restore.target = target;
            restore.to = revisions.get(link);
            restore.force = old != null;
            restore.files = files;
            assertEquals(ExitCodes.OK, restore.call());
            files.finish();
            for (PowerCutFiles.Cut cut : files.cuts()) {
                for (State state : states(cut, samples)) {
                    String where = "restore of link " + link + (old != null ? " --force" : "") + ", power cut " + cut
                            + ", " + state + "; " + replay(seed);
                    checkRestoreCut(cut, state, random, dest, old, revisions.get(link), links.get(link), where);
                    checked++;
                }
            }
            cuts += files.cuts().size();
        }
        System.out.printf("restore power cuts: %d cuts, %d disk states checked; %s%n", cuts, checked, replay(seed));
    }

    /** One state after a cut during a restore: TARGET absent, the old store or complete; a second restore works. */
    private void checkRestoreCut(PowerCutFiles.Cut cut, State state, Random random, Path dest, byte[] old, long revision,
            TreeMap<String, TreeMap<String, String>> expected, String where) throws IOException {
        Path image = state.write(cut, random, dir.resolve("image"));
        Path target = image.resolve("target.mvbt");
        if (!Files.exists(target)) {
            assertEquals(null, old, where + ": the old TARGET is gone");
            assertFalse(cut.last, where + ": the restore returned, TARGET must be there");
        } else if (old != null && java.util.Arrays.equals(old, Files.readAllBytes(target))) {
            assertFalse(cut.last, where + ": the restore returned, TARGET must be the restored store");
        } else {
            Reboot.now();
            TreeMap<String, TreeMap<String, String>> got;
            try {
                got = BackupHistories.contents(target);
            } catch (RuntimeException e) {
                throw new AssertionError(where + ": TARGET is neither the old store nor a store at all", e);
            }
            assertEquals(expected, got, where + ": TARGET is neither the old store nor the complete restored one");
        }
        Object[] r = mvbt("restore", dest.toString(), target.toString(), "--to", Long.toString(revision), "--force");
        assertEquals(ExitCodes.OK, status(r), where + ", a second restore: " + output(r));
        assertEquals(expected, BackupHistories.contents(target), where + ", a second restore");
        assertFalse(Files.exists(image.resolve("target.mvbt.restoring")), where);
        delete(image);
    }

    private static TreeMap<String, TreeMap<String, String>> contents(Store store) {
        try (Snapshot s = store.beginRead()) {
            return BackupHistories.contents(store, s);
        }
    }

    private static void delete(Path tree) throws IOException {
        try (Stream<Path> paths = Files.walk(tree)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
