// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import io.mvbt.btree.Node;

/**
 * The five leaf searches the benchmark times find the same index, the production
 * {@link Node#searchLeaf}'s, for every key of the page and for keys between, before and after them.
 */
class VarHandlePageTest {
    @Test
    void everySearchAgreesWithTheProductionOne() {
        LeafSearchBenchmark bench = new LeafSearchBenchmark();
        bench.setUp();
        VarHandlePage page = new VarHandlePage();
        BufferPage bufferPage = new BufferPage();
        UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
        int checked = 0;
        for (int w = 0; w < 2; w++) {
            long address = bench.addresses[w] + LeafSearchBenchmark.PAGE_OFFSET;
            byte[][] keys = LeafSearchBenchmark.leafKeys(w * 1_000_000L);
            assertTrue(Node.prefixLength(address) > 0, "the keys share a prefix, as a real leaf's do");
            for (int i = 0; i < keys.length; i++) {
                for (byte[] key : probes(keys[i])) {
                    int expected = Node.searchLeaf(address, key, BufferUtil.ARRAY_BASE_OFFSET, key.length);
                    assertEquals(expected, page.wrap(bench.windows[w], LeafSearchBenchmark.PAGE_OFFSET).searchLeaf(key),
                            () -> "VarHandle search of " + Arrays.toString(key));
                    assertEquals(expected, VarHandlePage.searchLeaf(VarHandlePage.handle(w, LeafSearchBenchmark.PAGE_OFFSET),
                            key), () -> "VarHandle search by handle of " + Arrays.toString(key));
                    assertEquals(expected, bufferPage.wrap(bench.windows[w], LeafSearchBenchmark.PAGE_OFFSET).searchLeaf(key),
                            () -> "ByteBuffer search of " + Arrays.toString(key));
                    buffer.wrap(address, LeafSearchBenchmark.PAGE);
                    assertEquals(expected, LeafSearchBenchmark.searchLeaf(buffer, key),
                            () -> "UnsafeBuffer search of " + Arrays.toString(key));
                    checked++;
                }
                assertEquals(i, page.wrap(bench.windows[w], LeafSearchBenchmark.PAGE_OFFSET).searchLeaf(keys[i]));
            }
            byte[] before = new byte[1];
            assertEquals(-1, page.wrap(bench.windows[w], LeafSearchBenchmark.PAGE_OFFSET).searchLeaf(before));
            byte[] after = new byte[20];
            Arrays.fill(after, (byte) 0xFF);
            assertEquals(-(keys.length + 1), page.searchLeaf(after));
        }
        assertEquals(2 * LeafSearchBenchmark.ENTRIES * 5, checked);
        // The benchmark's own lookups land on their keys.
        assertTrue(bench.unsafeAddress() >= 0 && bench.unsafeBuffer() >= 0 && bench.varHandle() >= 0
                && bench.byteBuffer() >= 0 && bench.varHandleByHandle() >= 0);
    }

    /** The key, a key just after it, one just before it, its prefix, and it with a byte more. */
    private static byte[][] probes(byte[] key) {
        byte[] after = key.clone();
        after[after.length - 1]++;
        byte[] before = key.clone();
        before[before.length - 1]--;
        byte[] longer = Arrays.copyOf(key, key.length + 1);
        return new byte[][] {key, after, before, Arrays.copyOf(key, key.length - 3), longer};
    }
}
