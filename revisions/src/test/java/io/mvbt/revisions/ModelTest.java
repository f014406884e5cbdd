// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.mvbt.revisions.ModelHarness.Kind;
import io.mvbt.revisions.ModelHarness.Op;

/**
 * Random operation lists against the TreeMap model (see {@link ModelHarness}). Replay one seed with
 * {@code -Dmvbt.seed=N}; run more with {@code -Dmvbt.seeds=N}, or the long profile's counts with
 * {@code -Dmvbt.profile=long}.
 */
class ModelTest {
    private static final int OPS = 1500;

    @Test
    void memoryStoreMatchesTheModel() {
        run(new ModelHarness(false, 4096), seeds(40, 2_000));
    }

    @Test
    void fileStoreMatchesTheModel() {
        run(new ModelHarness(true, 4096), seeds(15, 1_000));
    }

    /** Every reopen compacts whatever an eighth of the file could give back, however small. */
    @Test
    void fileStoreCompactingAtEveryCloseMatchesTheModel() {
        long saved = Compaction.minimumGainBytes;
        Compaction.minimumGainBytes = 0;
        try {
            run(new ModelHarness(true, 4096), seeds(15, 1_000));
            run(new ModelHarness(ModelHarness.SHADOWED, 16384), seeds(3, 300));
        } finally {
            Compaction.minimumGainBytes = saved;
        }
    }

    @Test
    void fileStoreWithAShadowMatchesTheModel() {
        run(new ModelHarness(ModelHarness.SHADOWED, 4096), seeds(10, 1_000));
        run(new ModelHarness(ModelHarness.SHADOWED, 16384), seeds(3, 300));
    }

    @Test
    void fileStoreWithARedoLogMatchesTheModel() {
        run(new ModelHarness(ModelHarness.LOGGED, 4096), seeds(10, 1_000));
        run(new ModelHarness(ModelHarness.LOGGED, 65536), seeds(2, 300));
    }

    @Test
    void largePagesMatchTheModel() {
        run(new ModelHarness(true, 65536), seeds(3, 300));
    }

    @Test
    void everyOtherPageSizeMatchesTheModel() {
        for (int pageSize : new int[] {8192, 16384, 32768}) {
            run(new ModelHarness(pageSize == 16384, pageSize), seeds(3, 300));
        }
    }

    /**
     * Found by seed 847333: deletions leave garbage in the right-edge branch, and a bulk load in the
     * same transaction appended separators to it as if its free bytes were contiguous, overwriting
     * the page header.
     */
    @Test
    void bulkLoadAfterDeletionsInTheSameTransaction() {
        List<Op> ops = new ArrayList<>();
        ops.add(new Op(Kind.CREATE_TREE, 1, 89, 62, 20069));
        int[][] puts = {{141, 744, 896896}, {16, 7, 742980}, {208, 361, 393185}, {305, 788, 601324},
            {104, 372, 785864}, {152, 982, 229830}, {320, 833, 1018469}, {184, 150, 114118}, {399, 946, 530699}};
        for (int[] p : puts) {
            ops.add(new Op(Kind.PUT, 1, p[0], p[1], p[2]));
        }
        ops.add(new Op(Kind.DELETE_RUN, 1, 104, 439, 371273));
        ops.add(new Op(Kind.BULK_LOAD, 1, 87, 750, 248293));
        new ModelHarness(false, 4096).run(ops);
    }

    /**
     * Found by seed 1251202: an append on the right edge leaves a one-child branch over a one-entry
     * leaf; deleting that entry left an empty leaf with no sibling to merge into, and cursors read
     * slot 0 of it as a key.
     */
    @Test
    void deletingTheOnlyEntryUnderAOneChildBranch() {
        List<Op> ops = new ArrayList<>();
        ops.add(new Op(Kind.CREATE_TREE, 1, 306, 95, 911220));
        ops.add(new Op(Kind.PUT, 1, 183, 767, 793049));
        ops.add(new Op(Kind.PUT, 1, 6, 752, 624561));
        ops.add(new Op(Kind.BULK_LOAD, 1, 297, 751, 563426));
        ops.add(new Op(Kind.BULK_LOAD, 1, 258, 692, 615610));
        ops.add(new Op(Kind.PUT, 1, 176, 416, 713026));
        ops.add(new Op(Kind.PUT, 1, 288, 476, 231189));
        ops.add(new Op(Kind.DELETE_RUN, 1, 200, 741, 315898));
        ops.add(new Op(Kind.COMMIT_NORMAL, 1, 0, 0, 0));
        ops.add(new Op(Kind.CHECK_STORE, 1, 0, 0, 0));
        new ModelHarness(true, 4096).run(ops);
    }

    /**
     * Issue 27, found by seed 63352 at 8 KiB pages: a range delete after a bulk load in the same
     * transaction emptied the first child of a branch and merged the last one into it, and the
     * branch's first entry took a key; the commit returned, and every read after a reopen failed.
     */
    @Test
    void rangeDeleteAfterABulkLoadInTheSameTransaction() {
        List<Op> ops = new ArrayList<>();
        ops.add(new Op(Kind.CREATE_TREE, 2, 4, 43, 126068));
        ops.add(new Op(Kind.PUT, 2, 250, 557, 108156));
        ops.add(new Op(Kind.BULK_LOAD_OPEN, 2, 136, 885, 885005));
        ops.add(new Op(Kind.DELETE_RANGE, 2, 195, 487, 89223));
        ops.add(new Op(Kind.REOPEN, 2, 0, 0, 1));
        new ModelHarness(true, 8192).run(ops);
    }

    /** Seeds per configuration: {@code -Dmvbt.seeds}, else the short or long profile's. */
    private static int seeds(int shortRun, int longRun) {
        return Integer.getInteger("mvbt.seeds", "long".equals(System.getProperty("mvbt.profile")) ? longRun : shortRun);
    }

    /** Runs {@code seeds} seeds of {@link #OPS} operations, or the one {@code -Dmvbt.seed} names. */
    static void run(ModelHarness harness, int seeds) {
        String replay = System.getProperty("mvbt.seed");
        if (replay != null) {
            harness.check(Long.parseLong(replay), OPS);
            return;
        }
        for (long seed = 1; seed <= seeds; seed++) {
            harness.check(seed * 7919, OPS);
        }
    }
}
