// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import io.mvbt.testkit.GatedSyncPageStore;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * A SYNC commit made while a checkpoint syncs its steady meta (of an older revision) stays
 * durable: the checkpoint does not take the durable revision back, and a power cut after later
 * NORMAL commits opens at the SYNC commit or later.
 */
class SyncDuringCheckpointTest {
    private static final int KEYS = 200;

    private static byte[] value(int i, int round) {
        return ("round-" + round + "-value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static void writeRound(Store store, int round, Durability d) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), value(i, round));
            }
            tx.commit(d);
        }
    }

    @Test
    void aSyncCommitDuringTheCheckpointsLastSyncStaysDurable() throws Exception {
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        GatedSyncPageStore gated = new GatedSyncPageStore(disk);
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1)).checkpointBytes(1L << 40);
        Store store = Store.over(gated, options, true);
        writeRound(store, 0, Durability.NORMAL);
        store.sync();
        writeRound(store, 1, Durability.NORMAL);
        // Hold the checkpoint's second sync: the one after its steady meta is written.
        GatedSyncPageStore.Gate last = gated.gate(2);
        CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(store::sync);
        last.awaitEntered();
        writeRound(store, 2, Durability.SYNC);
        long s = store.revision();
        assertEquals(s, store.stats().durableRevision());
        last.release();
        checkpoint.get();
        long durableAfter = store.stats().durableRevision();
        writeRound(store, 3, Durability.NORMAL);
        writeRound(store, 4, Durability.NORMAL);
        writeRound(store, 5, Durability.NORMAL);
        byte[] image = disk.cut(new java.util.Random(1));
        store.close();
        // After a reboot: metas written in this boot but not synced are not trusted.
        long high = BootId.HIGH;
        long low = BootId.LOW;
        BootId.reboot();
        try {
            try (Store reopened = Store.over(PowerCutPageStore.of(image, 4096), options, false)) {
                long at = reopened.revision();
                try (Snapshot snap = reopened.beginRead()) {
                    assertTrue(at >= s, "SYNC commit " + s + " lost: opened at " + at);
                    if (at == s) {
                        assertArrayEquals(value(0, 2), snap.get(reopened.tree("t"), key(0)));
                    }
                }
            }
        } finally {
            // Other tests in this JVM start writers in child processes, which must trust our metas.
            BootId.HIGH = high;
            BootId.LOW = low;
        }
        assertTrue(durableAfter >= s, "durable revision went back from " + s + " to " + durableAfter);
    }
}
