// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class WorkloadTest {
    @Test
    void permutationVisitsEveryElementOnce() {
        for (long n : new long[] {1, 2, 3, 100, 1000, 4097, 65_536}) {
            Permutation p = new Permutation(n, 7);
            BitSet seen = new BitSet();
            for (long i = 0; i < n; i++) {
                long v = p.apply(i);
                assertTrue(v >= 0 && v < n);
                assertTrue(!seen.get((int) v), "element " + v + " twice for n=" + n);
                seen.set((int) v);
            }
            assertEquals(n, seen.cardinality());
        }
    }

    @Test
    void keysAreTheSixteenDigitDecimalsOfTheirNumbers() {
        SplittableRandom rng = new SplittableRandom(5);
        byte[] key = new byte[16];
        for (int i = 0; i < 10_000; i++) {
            long n = i < 100 ? i : i < 200 ? 9_999_999_999_999_999L - i : rng.nextLong(10_000_000_000_000_000L >> (i % 50));
            Workload.key(n, key);
            assertEquals(String.format("%016d", n), new String(key, java.nio.charset.StandardCharsets.US_ASCII));
        }
        assertThrows(IllegalArgumentException.class, () -> Workload.key(10_000_000_000_000_000L, key));
        assertThrows(IllegalArgumentException.class, () -> Workload.key(-1, key));
    }

    @Test
    void keysSortAsTheirNumbersAndMissingKeysFallBetween() {
        byte[] a = new byte[16];
        byte[] gap = new byte[16];
        byte[] b = new byte[16];
        Workload.presentKey(41, a);
        Workload.missingKey(41, gap);
        Workload.presentKey(42, b);
        assertTrue(java.util.Arrays.compareUnsigned(a, gap) < 0);
        assertTrue(java.util.Arrays.compareUnsigned(gap, b) < 0);
        assertEquals(83, Workload.number(new UnsafeBuffer(gap)));
    }

    @Test
    void valueVerificationCatchesAValueOfAnotherEntry() {
        Workload w = new Workload();
        byte[] v = new byte[Workload.VALUE_SIZE];
        w.value(5, 0, v);
        Workload.checkValue(new UnsafeBuffer(v), 5, Workload.VALUE_SIZE);
        assertThrows(VerificationException.class, () -> Workload.checkValue(new UnsafeBuffer(v), 6, Workload.VALUE_SIZE));
    }
}
