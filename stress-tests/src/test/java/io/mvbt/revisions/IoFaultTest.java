// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.mvbt.StorageException;
import io.mvbt.StoreFailedException;
import io.mvbt.testkit.PowerCutPageStore.Operation;
import io.mvbt.testkit.PowerCutPageStore;
import io.mvbt.testkit.Profile;

/**
 * Injected failures of fsync, file growth (a full disk) and writes at random points of random
 * workloads. A failing operation throws a clear exception; after a failed growth or write the
 * transaction is aborted and the store goes on; after a failed fsync the store refuses every
 * later write (it must not carry on as if the sync had succeeded: PostgreSQL's fsync lesson) until
 * it is reopened. Reopened from the disk as a power cut leaves it, nothing durable is lost and the
 * checker passes. Reads go through the mapping and cannot fail here without a signal; they are not
 * injected. Trials: 300 short, 20,000 long, or {@code -Dmvbt.iofault.trials=N}.
 */
class IoFaultTest {
    @Test
    void failedWritesSyncsAndGrowthLoseNothingDurable() {
        int trials = Profile.size("mvbt.iofault.trials", 300, 20_000);
        int failedSyncs = 0;
        int failedOthers = 0;
        for (int trial = 0; trial < trials; trial++) {
            long seed = trial * 0x9E3779B97F4A7C15L + 17;
            try {
                int[] counts = trial(seed);
                failedSyncs += counts[0];
                failedOthers += counts[1];
            } catch (Throwable t) {
                throw new AssertionError("I/O fault trial " + trial + " failed (seed " + seed + ")", t);
            }
        }
        System.out.println("I/O faults: " + trials + " trials, " + failedSyncs + " failed syncs (store refused writes"
                + " after each), " + failedOthers + " failed growths or writes (transaction aborted, store went on),"
                + " 0 durable commits lost");
        assertTrue(failedSyncs + failedOthers > trials / 4, "too few faults injected to test anything");
    }

    private static int[] trial(long seed) {
        Random random = new Random(seed);
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1));
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        TreeMap<Long, Map<String, TreeMap<byte[], byte[]>>> committed = new TreeMap<>();
        long durable;
        int failedSync = 0;
        int failedOther = 0;
        byte[] image;
        Store store = Store.over(disk, options, true);
        try {
            durable = store.revision();
            committed.put(durable, ModelHarness.deepCopy(model));
            disk.failRandomly(0.03, random, EnumSet.allOf(Operation.class));
            Tree tree = store.tree("t");
            for (int op = 0; op < 80; op++) {
                boolean checkpoint = random.nextInt(8) == 0;
                Map<String, TreeMap<byte[], byte[]>> working = ModelHarness.deepCopy(model);
                try {
                    if (checkpoint) {
                        committed.put(store.revision() + 1, ModelHarness.deepCopy(model));
                        store.sync();
                        durable = store.revision();
                        continue;
                    }
                    try (WriteTxn tx = store.beginWrite()) {
                        tx.createTreeIfAbsent("t");
                        TreeMap<byte[], byte[]> m = working.computeIfAbsent("t", n -> ModelHarness.newMap());
                        int writes = 1 + random.nextInt(random.nextInt(6) == 0 ? 600 : 8);
                        for (int w = 0; w < writes; w++) {
                            byte[] key = String.format("k%06d", random.nextInt(50_000)).getBytes();
                            byte[] value = new byte[random.nextInt(25) == 0 ? 5000 + random.nextInt(30_000)
                                    : random.nextInt(100)];
                            random.nextBytes(value);
                            tx.put(tree, key, value);
                            m.put(key, value);
                        }
                        Durability d = random.nextInt(3) == 0 ? Durability.SYNC : Durability.NORMAL;
                        committed.put(tx.revision(), ModelHarness.deepCopy(working));
                        tx.commit(d);
                        model = working;
                        if (d == Durability.SYNC) {
                            durable = tx.revision();
                        }
                    }
                } catch (StoreFailedException e) {
                    // A failed fsync: from now on the store refuses writes, with the same clear state.
                    assertTrue(e.getMessage().contains("sync") && e.getMessage().contains("injected"), e.getMessage());
                    assertThrows(StoreFailedException.class, store::beginWrite);
                    assertThrows(StoreFailedException.class, store::sync);
                    failedSync++;
                    break;
                } catch (StorageException e) {
                    // A full disk or a failed write: the transaction was aborted; the store goes on.
                    assertTrue(e.getMessage().contains("injected"), e.getMessage());
                    failedOther++;
                }
            }
            image = disk.cut(random);
        } finally {
            try {
                store.close();
            } catch (StoreFailedException e) {
                // The final checkpoint's fsync failed: close says so, and the disk keeps what it had.
                assertTrue(e.getMessage().contains("sync") && e.getMessage().contains("injected"), e.getMessage());
            }
        }
        BootId.reboot();
        try (Store recovered = Store.over(PowerCutPageStore.of(image, 4096), options, false)) {
            recovered.check().throwIfDamaged();
            try (Snapshot s = recovered.beginRead()) {
                long revision = s.revision();
                assertTrue(revision >= durable, "durable revision " + durable + " lost: reopened at " + revision);
                TreeMap<byte[], byte[]> expected = committed.floorEntry(revision).getValue().get("t");
                Tree tree = recovered.tree("t");
                if (expected == null) {
                    assertTrue(!s.hasTree(tree));
                } else {
                    assertEquals(null, CrashWorkload.difference(s, tree, expected), "reopened at revision " + revision);
                }
            }
        }
        return new int[] {failedSync, failedOther};
    }
}
