// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;

import io.mvbt.testkit.GatedSyncPageStore;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * Commits that run while a checkpoint makes a revision durable must not reuse that revision's
 * pages: once the steady meta of revision c (the one the checkpoint's pass sealed) is on disk, a
 * power cut that loses the newer metas opens the store at c, and c must be whole.
 */
class CheckpointRaceTest {
    private static final int KEYS = 1000;

    private static byte[] value(int i, int round) {
        return ("round-" + round + "-value-" + i + "-" + "x".repeat(40)).getBytes(StandardCharsets.UTF_8);
    }

    private static void writeRound(Store store, int round) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), value(i, round));
            }
            tx.commit(Durability.NORMAL);
        }
    }

    @Test
    void commitsDuringACheckpointDoNotReuseTheRevisionItMakesDurable() throws Exception {
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        GatedSyncPageStore gated = new GatedSyncPageStore(disk);
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1)).checkpointBytes(1L << 40);
        Store store = Store.over(gated, options, true);
        writeRound(store, 0);
        store.sync();
        writeRound(store, 1);
        long c = store.revision(); // the revision the checkpoint will make durable
        // The checkpoint holds round 1 (c) and writes it back outside the meta lock: hold that sync.
        GatedSyncPageStore.Gate first = gated.gate(1);
        CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(store::sync);
        first.awaitEntered();
        writeRound(store, 2); // frees every page of c
        // Let it go; hold its last sync, of the steady meta of c, written with the meta lock free.
        GatedSyncPageStore.Gate last = gated.gate(1);
        first.release();
        last.awaitEntered();
        writeRound(store, 3); // allocates: must not take c's pages
        writeRound(store, 4);
        last.release();
        checkpoint.get();
        store.sync();
        byte[] image = disk.cut(new java.util.Random(1));
        store.close();

        // A later power cut tore the newer metas: only the steady meta of c is left.
        PowerCutPageStore reopened = PowerCutPageStore.of(image, 4096);
        List<MetaPage.Record> metas = Recovery.readAll(reopened, new Checksums(reopened));
        boolean hasC = false;
        for (MetaPage.Record m : metas) {
            if (m.revision > c) {
                UNSAFE.setMemory(reopened.address(m.slot), reopened.pageSize(), (byte) 0);
            }
            hasC |= m.revision == c && m.steady();
        }
        assertTrue(hasC, "no steady meta of revision " + c + " among " + metas.size() + " metas");
        reopened.sync();
        try (Store atC = Store.over(reopened, options, false)) {
            try (Snapshot s = atC.beginRead()) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(value(i, 1), s.get(atC.tree("t"), key(i)), "key " + i + " at revision " + c);
                }
            }
            atC.check().throwIfDamaged();
        }
    }
}
