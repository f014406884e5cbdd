// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.mvbt.bench.Workload;
import io.mvbt.btree.Node;

/**
 * The hottest read path, a key's binary search in a leaf (slot hints, then key bytes), five ways
 * over the same pages: the production {@link Node#searchLeaf} on raw addresses through
 * {@code sun.misc.Unsafe}; the same steps through Agrona's {@link UnsafeBuffer} re-wrapped per page;
 * and {@link VarHandlePage} over {@link ByteBuffer} windows with no Unsafe at all, as a page object
 * re-wrapped per page and as static reads through {@code long} handles; and {@link BufferPage}, the
 * page object through the buffer's own getters instead of VarHandles. Each operation
 * points at one of two pages in two windows (as a descent meets pages in several mappings) and
 * searches a present key. See docs/proposals/page-memory-without-unsafe.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class LeafSearchBenchmark {
    static final int PAGE = 4096;
    /** Where the page lies in its window: not at the start, as most pages are not. */
    static final int PAGE_OFFSET = 3 * PAGE;
    static final int ENTRIES = 100;
    static final int VALUE = 8;
    private static final int LOOKUPS = 1024;
    private static final VarHandle KEY_LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    final ByteBuffer[] windows = new ByteBuffer[2];
    final long[] addresses = new long[2];
    /** Keys to look up, and the page (0 or 1) each is in. */
    byte[][] keys;
    int[] pageOf;
    private int next;
    private final UnsafeBuffer unsafeBuffer = new UnsafeBuffer(0, 0);
    private final VarHandlePage varHandlePage = new VarHandlePage();
    private final BufferPage bufferPage = new BufferPage();

    @Setup
    public void setUp() {
        byte[][][] pageKeys = new byte[2][][];
        for (int w = 0; w < 2; w++) {
            windows[w] = BufferUtil.allocateDirectAligned(PAGE_OFFSET + PAGE, 4096).order(ByteOrder.nativeOrder());
            addresses[w] = BufferUtil.address(windows[w]);
            pageKeys[w] = leafKeys(w * 1_000_000L);
            writeLeaf(addresses[w] + PAGE_OFFSET, pageKeys[w]);
        }
        VarHandlePage.windows = windows.clone();
        SplittableRandom random = new SplittableRandom(Workload.SEED);
        keys = new byte[LOOKUPS][];
        pageOf = new int[LOOKUPS];
        for (int i = 0; i < LOOKUPS; i++) {
            pageOf[i] = random.nextInt(2);
            keys[i] = pageKeys[pageOf[i]][random.nextInt(ENTRIES)];
        }
    }

    /** {@link #ENTRIES} neighbouring keys of the db_bench shape (16 bytes), from {@code first}. */
    static byte[][] leafKeys(long first) {
        byte[][] keys = new byte[ENTRIES][];
        for (int i = 0; i < ENTRIES; i++) {
            keys[i] = new byte[Workload.KEY_SIZE];
            Workload.presentKey(first + i, keys[i]);
        }
        return keys;
    }

    /**
     * Lays out a leaf as {@link Node} documents it (entries from the end of the page down, slots in
     * key order) and lets {@link Node#refreshPrefix} set the page prefix and the hints.
     */
    static void writeLeaf(long page, byte[][] sortedKeys) {
        UnsafeBuffer p = new UnsafeBuffer(page, PAGE);
        p.setMemory(0, PAGE, (byte) 0);
        Node.init(page, true, 0, 1, 1, PAGE);
        p.putShort(VarHandlePage.COUNT, (short) sortedKeys.length);
        int end = PAGE;
        for (int i = 0; i < sortedKeys.length; i++) {
            byte[] key = sortedKeys[i];
            end -= Node.LEAF_ENTRY_HEADER + key.length + VALUE;
            p.putShort(end, (short) key.length);
            p.putShort(end + 2, (short) VALUE);
            p.putBytes(end + Node.LEAF_ENTRY_HEADER, key);
            p.putLong(end + Node.LEAF_ENTRY_HEADER + key.length, i);
            p.putShort(Node.SLOTS + Node.SLOT_SIZE * i, (short) end);
        }
        p.putInt(Node.CONTENT_START, end);
        Node.refreshPrefix(page);
    }

    private int nextLookup() {
        return next++ & (LOOKUPS - 1);
    }

    @Benchmark
    public int unsafeAddress() {
        int i = nextLookup();
        byte[] key = keys[i];
        return Node.searchLeaf(addresses[pageOf[i]] + PAGE_OFFSET, key, BufferUtil.ARRAY_BASE_OFFSET, key.length);
    }

    @Benchmark
    public int unsafeBuffer() {
        int i = nextLookup();
        unsafeBuffer.wrap(addresses[pageOf[i]] + PAGE_OFFSET, PAGE);
        return searchLeaf(unsafeBuffer, keys[i]);
    }

    @Benchmark
    public int varHandle() {
        int i = nextLookup();
        return varHandlePage.wrap(windows[pageOf[i]], PAGE_OFFSET).searchLeaf(keys[i]);
    }

    @Benchmark
    public int byteBuffer() {
        int i = nextLookup();
        return bufferPage.wrap(windows[pageOf[i]], PAGE_OFFSET).searchLeaf(keys[i]);
    }

    @Benchmark
    public int varHandleByHandle() {
        int i = nextLookup();
        return VarHandlePage.searchLeaf(VarHandlePage.handle(pageOf[i], PAGE_OFFSET), keys[i]);
    }

    /** {@link Node#searchLeaf} through an {@link UnsafeBuffer} over the page (bounds-checked unless disabled). */
    static int searchLeaf(UnsafeBuffer page, byte[] key) {
        int n = page.getShort(VarHandlePage.COUNT) & 0xFFFF;
        int prefix = page.getByte(VarHandlePage.PREFIX_LENGTH) & 0xFF;
        for (int i = 0; i < prefix; i++) {
            if (i >= key.length) {
                return -1;
            }
            int d = (key[i] & 0xFF) - (page.getByte(Node.PREFIX + i) & 0xFF);
            if (d != 0) {
                return d < 0 ? -1 : -(n + 1);
            }
        }
        int hint = Node.hintOf(key, BufferUtil.ARRAY_BASE_OFFSET, key.length, prefix);
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int slot = Node.SLOTS + Node.SLOT_SIZE * mid;
            int cmp = Integer.compareUnsigned(page.getInt(slot + 2), hint);
            if (cmp == 0) {
                int off = page.getShort(slot) & 0xFFFF;
                cmp = compare(page, off + Node.LEAF_ENTRY_HEADER, page.getShort(off) & 0xFFFF, key);
            }
            if (cmp < 0) {
                lo = mid + 1;
            } else if (cmp > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    private static int compare(UnsafeBuffer page, int at, int length, byte[] key) {
        int common = Math.min(length, key.length);
        int i = 0;
        for (; i + 8 <= common; i += 8) {
            long x = page.getLong(at + i, ByteOrder.BIG_ENDIAN);
            long y = (long) KEY_LONG_BE.get(key, i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < common; i++) {
            int d = (page.getByte(at + i) & 0xFF) - (key[i] & 0xFF);
            if (d != 0) {
                return d;
            }
        }
        return length - key.length;
    }

}
