package io.mvbt.revisions;

import org.junit.jupiter.api.Test;

/**
 * Random operation lists against the TreeMap model (see {@link ModelHarness}). Replay one seed with
 * {@code -Dmvbt.seed=N}; run more with {@code -Dmvbt.seeds=N}.
 */
class ModelTest {
    private static final int OPS = 1500;

    @Test
    void memoryStoreMatchesTheModel() {
        run(new ModelHarness(false, 4096), Integer.getInteger("mvbt.seeds", 40));
    }

    @Test
    void fileStoreMatchesTheModel() {
        run(new ModelHarness(true, 4096), Integer.getInteger("mvbt.seeds", 15));
    }

    @Test
    void largePagesMatchTheModel() {
        run(new ModelHarness(true, 65536), Integer.getInteger("mvbt.seeds", 3));
    }

    private static void run(ModelHarness harness, int seeds) {
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
