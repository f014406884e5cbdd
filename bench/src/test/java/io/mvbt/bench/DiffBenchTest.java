// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The diff benchmark on a small store: it runs, both ways find the changes, and the diff reads far less. */
class DiffBenchTest {
    @Test
    void aDiffOfAFewChangesReadsFarFewerPagesThanAMergeScan(@TempDir Path tmp) {
        DiffBench.Result r = DiffBench.run(tmp.resolve("diff.db"), 50_000, 30);
        assertEquals(30, r.changes());
        assertTrue(r.diffPages() * 5 < r.scanPages(), r.toString());
        assertEquals(4, r.csv().lines().count(), r.csv());
    }
}
