// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The index key encoding keeps value order, and its prefixes select exactly what they promise. */
class IndexKeyTest {
    private static byte[] randomValue(Random random) {
        byte[] v = new byte[random.nextInt(5)];
        for (int i = 0; i < v.length; i++) {
            // Few distinct bytes, zeros and 0xFF included, so that prefixes and escapes collide often.
            int pick = random.nextInt(4);
            v[i] = (byte) (pick == 0 ? 0x00 : pick == 1 ? 0xFF : pick == 2 ? 0x01 : 'a');
        }
        return v;
    }

    @Test
    void keysOrderByValueThenId() {
        Random random = new Random(11);
        for (int i = 0; i < 100_000; i++) {
            byte[] a = randomValue(random);
            byte[] b = randomValue(random);
            long ida = random.nextInt(3);
            long idb = random.nextInt(3);
            int expected = Arrays.compareUnsigned(a, b);
            if (expected == 0) {
                expected = Long.compare(ida, idb);
            }
            int actual = Arrays.compareUnsigned(IndexKey.encode(a, ida), IndexKey.encode(b, idb));
            assertEquals(Integer.signum(expected), Integer.signum(actual),
                    Arrays.toString(a) + "/" + ida + " vs " + Arrays.toString(b) + "/" + idb);
        }
    }

    @Test
    void prefixesSelectExactlyTheirValues() {
        Random random = new Random(12);
        for (int i = 0; i < 100_000; i++) {
            byte[] value = randomValue(random);
            byte[] probe = randomValue(random);
            byte[] key = IndexKey.encode(value, 42);
            boolean startsWith = value.length >= probe.length
                    && Arrays.equals(Arrays.copyOf(value, probe.length), probe);
            assertEquals(startsWith, startsWith(key, IndexKey.startsWithPrefix(probe)));
            assertEquals(Arrays.equals(value, probe), startsWith(key, IndexKey.valuePrefix(probe)));
            assertArrayEquals(value, IndexKey.value(key));
            assertEquals(42, IndexKey.id(key));
            assertEquals(key.length, IndexKey.encodedLength(value));
        }
    }

    @Test
    void prefixEndIsTheFirstKeyPastThePrefix() {
        assertArrayEquals(new byte[] {'a', 'c'}, IndexKey.prefixEnd(new byte[] {'a', 'b'}));
        assertArrayEquals(new byte[] {'b'}, IndexKey.prefixEnd(new byte[] {'a', (byte) 0xFF}));
        assertNull(IndexKey.prefixEnd(new byte[] {(byte) 0xFF, (byte) 0xFF}));
        assertNull(IndexKey.prefixEnd(new byte[0]));
        assertTrue(Arrays.compareUnsigned(IndexKey.encode(new byte[] {'a', (byte) 0xFF}, -1L),
                IndexKey.prefixEnd(IndexKey.startsWithPrefix(new byte[] {'a'}))) < 0);
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(Arrays.copyOf(key, prefix.length), prefix);
    }
}
