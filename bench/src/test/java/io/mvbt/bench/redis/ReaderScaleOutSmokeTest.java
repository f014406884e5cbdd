// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The reader scale-out benchmark on a few thousand entries: it starts its cluster and reader JVMs, and every read verifies. */
class ReaderScaleOutSmokeTest {
    @Test
    void readersOnAClusterReadEveryKeyRight() throws Exception {
        assertEquals(0, ReaderScaleOut.main(new String[] {"--entries", "3000", "--seconds", "0.2"}));
    }
}
