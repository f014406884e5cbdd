// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.mvbt.StoreFailedException;
import io.mvbt.testkit.PowerCutPageStore;
import io.mvbt.testkit.Profile;

/**
 * Power cuts at random moments of random workloads, on a simulated disk that loses, keeps or tears
 * (at 512-byte sectors) every page written since the last sync ({@link PowerCutPageStore}). After
 * each cut the store is reopened as after a reboot: it must open, pass the integrity check, hold
 * every commit acknowledged as durable, and hold exactly the state of one committed revision.
 * Trials: 1,000 in the short profile, 100,000 in the long one, or {@code -Dmvbt.powercut.trials=N}.
 */
class PowerCutTest {
    private static final String[] TREES = {"a", "b"};
    private static final java.util.concurrent.atomic.AtomicInteger MID_SYNC = new java.util.concurrent.atomic.AtomicInteger();

    @Test
    void powerCutsLoseOnlyRecentCommitsAndNeverCorrupt() {
        run(false);
    }

    /** The same with a redo log, which the power may cut too (mid-sync, or with its unsynced tail torn). */
    @Test
    void powerCutsOfAStoreWithARedoLogLoseOnlyRecentCommits() {
        run(true);
    }

    /**
     * Named revisions retained (by the store and in transactions) and released at random: after the
     * cut every name whose retain returned and that no release touched since is there, and every
     * name there reads exactly as the revision it names was committed, before and after the
     * recovered store rewrites what they reach.
     */
    @Test
    void powerCutsKeepNamedRevisions() {
        run(false, true);
    }

    @Test
    void powerCutsKeepNamedRevisionsOfAStoreWithARedoLog() {
        run(true, true);
    }

    private static void run(boolean logged) {
        run(logged, false);
    }

    private static void run(boolean logged, boolean named) {
        long segmentBytes = RedoLog.segmentBytes;
        // Small segments: rotations and the deletions of checkpoints happen within a trial.
        RedoLog.segmentBytes = 16 << 10;
        try {
            trials(logged, named);
        } finally {
            RedoLog.segmentBytes = segmentBytes;
        }
    }

    private static void trials(boolean logged, boolean named) {
        int trials = named ? Profile.size("mvbt.powercut.trials", 1000, 100_000) / 4
                : Profile.size("mvbt.powercut.trials", 1000, 100_000);
        long seed0 = Long.getLong("mvbt.powercut.seed", 1);
        int recoveredAtDurable = 0;
        int recoveredLater = 0;
        for (int trial = 0; trial < trials; trial++) {
            long seed = seed0 * 1_000_003 + trial;
            try {
                if (trial(seed, logged, named)) {
                    recoveredAtDurable++;
                } else {
                    recoveredLater++;
                }
            } catch (Throwable t) {
                throw new AssertionError("power-cut trial failed; replay with -Dmvbt.powercut.seed=" + seed0
                        + " (trial " + trial + ", seed " + seed + ")", t);
            }
        }
        System.out.println("power cuts" + (named ? " with named revisions" : "")
                + (logged ? " with a redo log: " : ": ") + trials + " trials, " + recoveredAtDurable
                + " recovered at the last durable commit, " + recoveredLater + " at a later commit, 0 failures; "
                + MID_SYNC.get() + " cuts during a sync");
        assertEquals(trials, recoveredAtDurable + recoveredLater);
    }

    /** Runs one trial; returns whether the store came back exactly at the last durable commit. */
    private static boolean trial(long seed, boolean logged, boolean named) {
        // Consecutive seeds give java.util.Random nearly the same first draws: spread them first.
        Random random = new Random(seed * 0x9E3779B97F4A7C15L);
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1)).redoLog(logged);
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        PowerCutRedoStorage log = logged ? new PowerCutRedoStorage() : null;
        // The disk as a cut during a sync of the log left it.
        byte[][] diskAtLogCut = new byte[1][];
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        // The data of each committed revision; later empty revisions (shrinks) read the same.
        TreeMap<Long, Map<String, TreeMap<byte[], byte[]>>> committed = new TreeMap<>();
        long durable = 0;
        // The newest revision that may have reached the disk: committed, or a commit cut short.
        long newest = 0;
        byte[] image;
        PowerCutRedoStorage logImage = null;
        // Names whose retain returned and that no release has touched since: they must survive.
        Map<String, Long> mustKeep = new HashMap<>();
        // Names retained, with the revision each named, in the writer's view.
        Map<String, Long> names = new HashMap<>();
        try (Store store = Store.over(disk, options, true, log)) {
            committed.put(store.revision(), ModelHarness.deepCopy(model));
            durable = store.revision();
            newest = durable;
            if (random.nextBoolean()) {
                // Half the trials lose the power in the middle of a sync (a commit's, a checkpoint's, the log's).
                if (logged && random.nextBoolean()) {
                    log.cutDuringSync(log.syncs() + 1 + random.nextInt(12), random,
                            () -> diskAtLogCut[0] = disk.cut(random));
                } else {
                    disk.cutDuringSync(disk.syncs() + 1 + random.nextInt(12), random);
                }
            }
            int operations = 1 + random.nextInt(120);
            Snapshot pinned = null;
            for (int op = 0; op < operations && disk.cutImage() == null && diskAtLogCut[0] == null; op++) {
                int kind = random.nextInt(20);
                if (kind < 14) {
                    Map<String, TreeMap<byte[], byte[]>> working = ModelHarness.deepCopy(model);
                    try (WriteTxn tx = store.beginWrite()) {
                        int writes = 1 + random.nextInt(random.nextInt(10) == 0 ? 400 : 12);
                        for (int w = 0; w < writes; w++) {
                            String name = TREES[random.nextInt(TREES.length)];
                            Tree tree = tx.createTreeIfAbsent(name);
                            TreeMap<byte[], byte[]> m = working.computeIfAbsent(name, n -> ModelHarness.newMap());
                            byte[] key = String.format("k%05d", random.nextInt(3000)).getBytes();
                            int what = random.nextInt(10);
                            if (what < 6) {
                                byte[] value = new byte[random.nextInt(30) == 0 ? 9000 + random.nextInt(20_000)
                                        : random.nextInt(120)];
                                random.nextBytes(value);
                                tx.put(tree, key, value);
                                m.put(key, value);
                            } else if (what < 9) {
                                tx.delete(tree, key);
                                m.remove(key);
                            } else {
                                byte[] to = String.format("k%05d", random.nextInt(3000)).getBytes();
                                if (java.util.Arrays.compareUnsigned(key, to) <= 0) {
                                    tx.deleteRange(tree, key, to);
                                    m.subMap(key, true, to, false).clear();
                                }
                            }
                        }
                        if (random.nextInt(8) == 0) {
                            continue; // abort
                        }
                        String retained = null;
                        if (named && random.nextInt(6) == 0) {
                            String name = "n" + random.nextInt(4);
                            if (!names.containsKey(name)) {
                                tx.retain(name);
                                retained = name;
                            }
                        }
                        Durability d = random.nextInt(3) == 0 ? Durability.SYNC : Durability.NORMAL;
                        committed.put(tx.revision(), ModelHarness.deepCopy(working));
                        newest = tx.revision();
                        try {
                            tx.commit(d);
                        } catch (StoreFailedException e) {
                            break; // the power went during this commit's sync
                        }
                        model = working;
                        if (d == Durability.SYNC || retained != null) {
                            durable = tx.revision();
                        }
                        if (retained != null) {
                            names.put(retained, tx.revision());
                            mustKeep.put(retained, tx.revision());
                        }
                    }
                } else if (kind < 16) {
                    // A checkpoint may add an empty revision (giving back the free tail).
                    committed.put(store.revision() + 1, ModelHarness.deepCopy(model));
                    newest = store.revision() + 1;
                    try {
                        if (logged && random.nextBoolean()) {
                            // A checkpoint (with a log, sync() syncs only the log).
                            store.compact();
                        } else {
                            store.sync();
                        }
                    } catch (StoreFailedException e) {
                        break;
                    }
                    durable = store.revision();
                    newest = durable;
                } else if (named && kind == 16) {
                    String name = "n" + random.nextInt(4);
                    if (names.containsKey(name)) {
                        mustKeep.remove(name);
                        names.remove(name);
                        // A checkpoint may add an empty revision first; the release's commit follows.
                        committed.put(store.revision() + 1, ModelHarness.deepCopy(model));
                        newest = store.revision() + 1;
                        try {
                            store.release(name);
                        } catch (StoreFailedException e) {
                            break;
                        }
                        newest = store.revision();
                    } else {
                        committed.put(store.revision() + 1, ModelHarness.deepCopy(model));
                        committed.put(store.revision() + 2, ModelHarness.deepCopy(model));
                        newest = store.revision() + 2;
                        long kept;
                        try {
                            kept = store.retain(name);
                        } catch (StoreFailedException e) {
                            break;
                        }
                        committed.remove(store.revision() + 1);
                        newest = store.revision();
                        durable = store.revision();
                        names.put(name, kept);
                        mustKeep.put(name, kept);
                    }
                } else if (kind < 18) {
                    if (pinned != null) {
                        pinned.close();
                    }
                    pinned = store.beginRead();
                } else if (pinned != null) {
                    pinned.close();
                    pinned = null;
                }
            }
            if (pinned != null) {
                pinned.close();
            }
            // The power fails here (if it did not during a sync): what the disk holds is all that survives.
            if (disk.cutImage() != null || diskAtLogCut[0] != null) {
                MID_SYNC.incrementAndGet();
            }
            image = disk.cutImage() != null ? disk.cutImage() : diskAtLogCut[0] != null ? diskAtLogCut[0] : disk.cut(random);
            if (logged) {
                logImage = log.cutImage() != null ? log.cutImage() : log.cut(random);
            }
        } catch (StoreFailedException e) {
            // Closing a store whose disk went away; the image is what counts.
            image = disk.cutImage() != null ? disk.cutImage() : diskAtLogCut[0];
            if (logged && logImage == null) {
                logImage = log.cutImage();
            }
        }
        BootId.reboot();
        // With a log, the checkpointer runs beside the replay: nothing else may publish meanwhile.
        StoreOptions reopen = logged ? options.checkpointInterval(Duration.ofMillis(1)) : options;
        try (Store recovered = Store.over(PowerCutPageStore.of(image, 4096), reopen, false, logImage)) {
            recovered.check().throwIfDamaged();
            long revision;
            try (Snapshot s = recovered.beginRead()) {
                revision = s.revision();
                assertTrue(revision >= durable, "durable revision " + durable + " lost: opened at " + revision);
                assertTrue(revision <= newest, "opened at revision " + revision + ", newer than any commit (" + newest
                        + ")");
                Map<String, TreeMap<byte[], byte[]>> expected = committed.floorEntry(revision).getValue();
                for (String name : TREES) {
                    Tree tree = recovered.tree(name);
                    TreeMap<byte[], byte[]> m = expected.get(name);
                    if (m == null) {
                        assertTrue(!s.hasTree(tree), "tree " + name + " should not exist at revision " + revision);
                        continue;
                    }
                    String diff = CrashWorkload.difference(s, tree, m);
                    assertEquals(null, diff, "revision " + revision + " is not exactly what was committed");
                }
            }
            if (named) {
                checkNamed(recovered, committed, mustKeep);
            }
            // The recovered store takes writes again.
            try (WriteTxn tx = recovered.beginWrite()) {
                tx.put(tx.createTreeIfAbsent("a"), "after".getBytes(), new byte[10]);
                tx.commit(Durability.SYNC);
            }
            recovered.check().throwIfDamaged();
            if (named) {
                // Rewrites that would reuse the pages named revisions reach if they were free.
                for (int i = 0; i < 20; i++) {
                    try (WriteTxn tx = recovered.beginWrite()) {
                        Tree tree = tx.createTreeIfAbsent("a");
                        for (int k = 0; k < 3000; k += 1 + random.nextInt(40)) {
                            tx.put(tree, String.format("k%05d", k).getBytes(), new byte[60]);
                        }
                        tx.commit();
                    }
                }
                checkNamed(recovered, committed, mustKeep);
                recovered.check().throwIfDamaged();
            }
            return committed.floorKey(revision) <= durable || revision == durable;
        }
    }

    /** Every name that must survive is there, and every name there reads as its revision was committed. */
    private static void checkNamed(Store recovered, TreeMap<Long, Map<String, TreeMap<byte[], byte[]>>> committed,
            Map<String, Long> mustKeep) {
        Map<String, Long> found = new HashMap<>();
        for (NamedRevision n : recovered.namedRevisions()) {
            found.put(n.name(), n.revision());
        }
        for (Map.Entry<String, Long> e : mustKeep.entrySet()) {
            assertEquals(e.getValue(), found.get(e.getKey()), "named revision '" + e.getKey() + "' lost: " + found);
        }
        for (Map.Entry<String, Long> e : found.entrySet()) {
            try (Snapshot s = recovered.beginRead(e.getKey())) {
                assertEquals((long) e.getValue(), s.revision());
                Map<String, TreeMap<byte[], byte[]>> expected = committed.floorEntry(s.revision()).getValue();
                for (String name : TREES) {
                    Tree tree = recovered.tree(name);
                    TreeMap<byte[], byte[]> m = expected.get(name);
                    if (m == null) {
                        assertTrue(!s.hasTree(tree), "tree " + name + " should not exist at named revision "
                                + s.revision());
                        continue;
                    }
                    assertEquals(null, CrashWorkload.difference(s, tree, m), "named revision '" + e.getKey() + "' ("
                            + s.revision() + ") is not what was committed");
                }
            }
        }
    }
}
