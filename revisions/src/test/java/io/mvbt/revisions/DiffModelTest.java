// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import org.junit.jupiter.api.Test;

import io.mvbt.testkit.Profile;

/**
 * {@link Snapshot#diff} against the diff of two TreeMaps, over the random histories of
 * {@link ModelHarness}: puts and deletes with keys up to the size limit and values on both sides of
 * the overflow boundary, bulk loads, range deletes, trees created and dropped, commits, aborts and
 * reopens. At every snapshot check the harness diffs two open snapshots, and one against the newest
 * revision both ways, every tree and one alone, and demands exactly the models' changes. Replay one
 * seed with {@code -Dmvbt.seed=N}; {@code -Dmvbt.profile=long} runs many more.
 */
class DiffModelTest {
    private static final int OPS = 1500;

    @Test
    void memoryStoreDiffsMatchTheModel() {
        run(new ModelHarness(false, 4096).checkingDiffs(), Profile.size("mvbt.seeds", 25, 1_000));
    }

    @Test
    void everyPageSizeDiffsMatchTheModel() {
        for (int pageSize : new int[] {4096, 8192, 16384, 32768, 65536}) {
            run(new ModelHarness(true, pageSize).checkingDiffs(), Profile.size("mvbt.seeds", 3, 200));
        }
    }

    @Test
    void shadowedAndLoggedStoresDiffsMatchTheModel() {
        run(new ModelHarness(ModelHarness.SHADOWED, 4096).checkingDiffs(), Profile.size("mvbt.seeds", 4, 200));
        run(new ModelHarness(ModelHarness.LOGGED, 8192).checkingDiffs(), Profile.size("mvbt.seeds", 4, 200));
    }

    private static void run(ModelHarness harness, int seeds) {
        String replay = System.getProperty("mvbt.seed");
        if (replay != null) {
            harness.check(Long.parseLong(replay), OPS);
            return;
        }
        for (long seed = 1; seed <= seeds; seed++) {
            // Other seeds than ModelTest's, so that the two suites explore different histories.
            harness.check(seed * 104_729 + 49, OPS);
        }
    }
}
