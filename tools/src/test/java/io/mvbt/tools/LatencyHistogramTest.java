// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
    @Test
    void percentilesLieWithinTheBucketErrorOfTheExactOnes() {
        Random r = new Random(7);
        long[] samples = new long[100_000];
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        for (int i = 0; i < samples.length; i++) {
            // Log-uniform from 1 ns to about 1 s, as latencies spread.
            samples[i] = (long) Math.exp(r.nextDouble() * Math.log(1e9));
            (i % 2 == 0 ? a : b).record(samples[i]);
        }
        a.add(b);
        Arrays.sort(samples);
        assertEquals(samples.length, a.count());
        assertEquals(samples[samples.length - 1], a.max());
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999, 1.0}) {
            long exact = samples[(int) Math.ceil(q * samples.length) - 1];
            long got = a.percentile(q);
            assertTrue(got >= exact && got <= exact + Math.max(1, exact / 64), q + ": " + got + " vs " + exact);
        }
    }

    @Test
    void smallValuesAreExactAndBucketsCoverEveryLong() {
        for (long v = 0; v < 200; v++) {
            int bucket = LatencyHistogram.bucket(v);
            assertTrue(LatencyHistogram.upperBound(bucket) >= v);
            if (v < 64) {
                assertEquals(v, LatencyHistogram.upperBound(bucket));
            }
        }
        assertEquals(Long.MAX_VALUE, LatencyHistogram.upperBound(LatencyHistogram.bucket(Long.MAX_VALUE)));
    }
}
