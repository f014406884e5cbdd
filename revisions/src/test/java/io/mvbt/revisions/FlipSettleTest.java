// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.mvbt.testkit.PowerCutPageStore;

/**
 * Every meta lists the flips (pages whose in-use bit differs from the free map), so each commit
 * pays for those it carries. A set that stops growing just short of the meta's capacity must still
 * be flushed into the free map, not written by every commit from then on.
 */
class FlipSettleTest {
    @Test
    void flipsThatStopGrowingAreFlushedWithinTheSettlingCommits() {
        StoreOptions options = StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofHours(1)).checkpointBytes(1L << 40);
        int quarter = MetaPage.flipCapacity(4096) / 4;
        try (Store store = Store.open(new PowerCutPageStore(4096), options)) {
            Tree t;
            try (WriteTxn tx = store.beginWrite()) {
                t = tx.createTree("t");
                tx.commit();
            }
            Random random = new Random(3);
            byte[] value = new byte[100];
            int longestRun = 0;
            int run = 0;
            long sum = 0;
            int commits = 20_000;
            for (int i = 0; i < commits; i++) {
                // A tree that grows to 10,000 keys, then is only overwritten: its flips stop growing.
                byte[] key = ("key-" + random.nextInt(10_000)).getBytes();
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(t, key, value);
                    tx.commit();
                }
                int flips = store.flips().size();
                sum += flips;
                run = flips > quarter ? run + 1 : 0;
                longestRun = Math.max(longestRun, run);
            }
            assertTrue(longestRun <= Committer.FLIP_SETTLE_COMMITS + 1, "commits in a row carrying more than " + quarter
                    + " flips: " + longestRun);
            assertTrue(sum < (long) commits * quarter, "flips carried per commit on average: " + sum / commits);
        }
    }
}
