// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static io.mvbt.tools.BackupRestoreTest.backup;
import static io.mvbt.tools.CommandsTest.mvbt;
import static io.mvbt.tools.CommandsTest.output;
import static io.mvbt.tools.CommandsTest.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Store;
import io.mvbt.testkit.Profile;

/**
 * Power cuts during restore, on a modelled disk ({@link PowerCutFiles}) that keeps only what the
 * tool's fsyncs made durable: before every durable step and after the command returns, states the
 * disk could hold are written out and checked (one that lost all that was not durable, one that
 * kept it all, one that kept the renames but not the data, the rest mixed at random). A cut leaves
 * TARGET absent, the old store byte for byte, or the complete restored store, never a partial one,
 * and a second restore succeeds. Short profile: {@value #SHORT_SAMPLES} states per cut;
 * {@code -Dmvbt.profile=long} for more, or {@code -Dmvbt.backup.powercut.samples=N}; replay with
 * {@code -Dmvbt.backup.powercut.seed=S}.
 */
class BackupPowerCutTest {
    private static final int SHORT_SAMPLES = 6;

    @TempDir
    Path dir;

    private int images;

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
                for (int i = 0; i < samples; i++) {
                    PowerCutFiles.Outcome outcome = PowerCutFiles.Outcome.of(i);
                    String where = "restore of link " + link + (old != null ? " --force" : "") + ", power cut " + cut
                            + ", " + outcome + "; " + replay(seed);
                    checkRestoreCut(cut, outcome, random, dest, old, revisions.get(link), links.get(link), where);
                }
            }
            cuts += files.cuts().size();
        }
        System.out.printf("restore power cuts: %d cuts, %d disk states checked; %s%n", cuts, images, replay(seed));
    }

    /** One state after a cut during a restore: TARGET absent, the old store or complete; a second restore works. */
    private void checkRestoreCut(PowerCutFiles.Cut cut, PowerCutFiles.Outcome outcome, Random random, Path dest,
            byte[] old, long revision, TreeMap<String, TreeMap<String, String>> expected, String where) throws IOException {
        Path image = dir.resolve("image-" + images++);
        PowerCutFiles.write(cut, outcome, random, image);
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

    private static void delete(Path tree) throws IOException {
        try (Stream<Path> paths = Files.walk(tree)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
