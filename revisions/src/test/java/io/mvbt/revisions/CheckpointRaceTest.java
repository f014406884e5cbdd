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
 * pages: once the steady meta of revision h is on disk, a power cut that loses the newer metas
 * opens the store at h, and h must be whole.
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
        // The checkpoint holds round 1 (c) and writes it back outside the meta lock: hold that sync.
        GatedSyncPageStore.Gate first = gated.gate(1);
        CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(store::sync);
        first.awaitEntered();
        writeRound(store, 2); // h: the revision the checkpoint will make durable
        // Let it go; hold its last sync, after the steady meta of h is written and the meta lock is free.
        GatedSyncPageStore.Gate last = gated.gate(2);
        first.release();
        last.awaitEntered();
        long h = store.revision();
        writeRound(store, 3); // frees every page of h
        writeRound(store, 4); // allocates: must not take h's pages
        last.release();
        checkpoint.get();
        store.sync();
        byte[] image = disk.cut(new java.util.Random(1));
        store.close();

        // A later power cut tore the newer metas: only the steady meta of h is left.
        PowerCutPageStore reopened = PowerCutPageStore.of(image, 4096);
        List<MetaPage.Record> metas = Recovery.readAll(reopened, new Checksums(reopened));
        boolean hasH = false;
        for (MetaPage.Record m : metas) {
            if (m.revision > h) {
                UNSAFE.setMemory(reopened.address(m.slot), reopened.pageSize(), (byte) 0);
            }
            hasH |= m.revision == h && m.steady();
        }
        assertTrue(hasH, "no steady meta of revision " + h + " among " + metas.size() + " metas");
        reopened.sync();
        try (Store atH = Store.over(reopened, options, false)) {
            try (Snapshot s = atH.beginRead()) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(value(i, 2), s.get(atH.tree("t"), key(i)), "key " + i + " at revision " + h);
                }
            }
            atH.check().throwIfDamaged();
        }
    }
}
