// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;

import io.mvbt.CorruptionException;
import io.mvbt.btree.PageHeader;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * A commit that fails after it wrote the free map (its flips flushed) must leave the flips as they
 * were: the next meta lists them against the free map of the last revision, and a reopened store
 * trusts them to know which pages are in use.
 */
class AbortAfterFlushTest {
    @Test
    void aCommitFailingAfterTheFreeMapFlushLosesNoFlips() {
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1)).checkpointBytes(1L << 40);
        byte[] large = new byte[400 << 10];
        new Random(1).nextBytes(large);
        byte[] image;
        try (Store store = Store.open(disk, options)) {
            Tree a;
            Tree b;
            try (WriteTxn tx = store.beginWrite()) {
                a = tx.createTree("a");
                b = tx.createTree("b");
                tx.commit();
            }
            store.sync();
            for (int i = 0; i < 40; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(b, ("b-" + i).getBytes(), new byte[300]);
                    tx.commit();
                }
            }
            // Damage b's root, written since the last checkpoint: a synced commit seals (walks) it.
            long root;
            try (Snapshot s = store.beginRead()) {
                root = store.pages().address(s.rootOf(b).page);
            }
            byte type = UNSAFE.getByte(root + PageHeader.TYPE);
            UNSAFE.putByte(root + PageHeader.TYPE, (byte) 99);
            long[] flipsBefore = members(store.flips());
            assertThrows(CorruptionException.class, () -> {
                try (WriteTxn tx = store.beginWrite()) {
                    // A hundred pages of overflow: more flips than the meta holds, so the free map is flushed first.
                    tx.put(a, "large".getBytes(), large);
                    tx.commit(Durability.SYNC);
                }
            });
            UNSAFE.putByte(root + PageHeader.TYPE, type);
            assertArrayEquals(flipsBefore, members(store.flips()), "the flips after the failed commit");

            try (WriteTxn tx = store.beginWrite()) {
                tx.put(a, "after".getBytes(), new byte[10]);
                tx.commit();
            }
            store.sync();
            image = disk.cut(new Random(2));
            CheckReport report = store.check();
            assertTrue(report.ok(), report.toString());
        }
        // The store as the last checkpoint left it, whose meta carries the flips.
        try (Store store = Store.open(PowerCutPageStore.of(image, 4096), options)) {
            CheckReport report = store.check();
            assertTrue(report.ok(), report.toString());
            try (Snapshot s = store.beginRead()) {
                assertArrayEquals(new byte[300], s.get(store.tree("b"), "b-39".getBytes()));
            }
        }
    }

    private static long[] members(FlipSet flips) {
        long[] out = new long[flips.compact()];
        for (int i = 0; i < out.length; i++) {
            out[i] = flips.member(i);
        }
        java.util.Arrays.sort(out);
        return out;
    }
}
