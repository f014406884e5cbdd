// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Prototype (docs/proposals/page-memory-without-unsafe.md): a page of a mapping read through
 * {@link MethodHandles#byteBufferViewVarHandle} instead of {@code sun.misc.Unsafe}, so that a JDK
 * 24 and later prints no warning and a JDK without {@code sun.misc.Unsafe} memory access still runs
 * it. It compiles for Java 17.
 *
 * <p>A page is named by its mapping window (one {@link ByteBuffer} per window below 2 GiB, made once
 * when the window is mapped) and its offset in that window; {@link #wrap} only stores the two, so a
 * cursor that moves from page to page allocates nothing, across windows too. Multi-byte fields are
 * little-endian, as the page format is on the machines we run on; keys compare as unsigned bytes,
 * eight at a time read big-endian, as {@code io.mvbt.btree.Keys} does.
 *
 * <p>Two shapes are here: a page object re-wrapped per page ({@link #wrap}), and static reads
 * through {@code long} handles ({@link #handle}) that keep today's address arithmetic.
 * Only the read path of a leaf search is here: a count, the slot array of offsets and hints,
 * and a key compared with a {@code byte[]} (the layout of {@code io.mvbt.btree.Node}).
 */
final class VarHandlePage {
    static final int COUNT = 6;
    static final int PREFIX_LENGTH = 29;
    static final int SLOTS = 44;
    static final int SLOT_SIZE = 6;
    static final int LEAF_ENTRY_HEADER = 4;

    private static final VarHandle SHORT = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle ARRAY_LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.BIG_ENDIAN);

    static {
        loadAccessSignatureClasses();
    }

    private ByteBuffer window;
    private int base;

    /**
     * Loads the classes that the JDK's buffer access methods name in their signatures, so that C2
     * can inline those methods into the first compilation of a search. C2 does not inline a method
     * whose signature names a class not yet loaded ("unloaded signature classes" in
     * {@code -XX:+PrintInlining}), and nothing makes it recompile when the class loads later. On
     * JDK 17 every {@link ByteBuffer} access, through a VarHandle or the buffer's own getters, goes
     * through {@code ScopedMemoryAccess} methods that take a {@code ScopedMemoryAccess.Scope}, and
     * that class is loaded only when C2 is first asked to compile one of those methods on its own.
     * Whether that happens before or after the search is compiled is a race between compilations:
     * two or three JVMs in ten lost it, and their search made dozens of calls instead of loads, at
     * 3x to 10x the time, for as long as they ran. Reflecting on {@link Buffer} loads the signature
     * classes of its methods (the scope on 17; the session classes on later JDKs, which load them
     * at startup anyway) through public API. Cheap, and harmless to repeat; call it before the
     * first access.
     */
    static void loadAccessSignatureClasses() {
        Buffer.class.getDeclaredMethods();
    }

    /**
     * The other shape, closer to today's code: page memory named by a {@code long} handle,
     * {@code window << 32 | offset}, that a page's code adds field offsets to as it adds them to an
     * address now; each read looks its window up in this table (set once, when windows are mapped).
     */
    static ByteBuffer[] windows = new ByteBuffer[0];

    static long handle(int window, int offset) {
        return (long) window << 32 | offset;
    }

    static short getShort(long handle) {
        return (short) SHORT.get(windows[(int) (handle >>> 32)], (int) handle);
    }

    static int getInt(long handle) {
        return (int) INT.get(windows[(int) (handle >>> 32)], (int) handle);
    }

    static byte getByte(long handle) {
        return windows[(int) (handle >>> 32)].get((int) handle);
    }

    static long getLongBigEndian(long handle) {
        return (long) LONG_BE.get(windows[(int) (handle >>> 32)], (int) handle);
    }

    /** {@link #searchLeaf} through handles: the same steps, each read looking its window up. */
    static int searchLeaf(long page, byte[] key) {
        int n = Short.toUnsignedInt(getShort(page + COUNT));
        int prefix = getByte(page + PREFIX_LENGTH) & 0xFF;
        for (int i = 0; i < prefix; i++) {
            if (i >= key.length) {
                return -1;
            }
            int d = (key[i] & 0xFF) - (getByte(page + 32 + i) & 0xFF);
            if (d != 0) {
                return d < 0 ? -1 : -(n + 1);
            }
        }
        int hint = hintOf(key, prefix);
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long slot = page + SLOTS + (long) SLOT_SIZE * mid;
            int cmp = Integer.compareUnsigned(getInt(slot + 2), hint);
            if (cmp == 0) {
                long entry = page + Short.toUnsignedInt(getShort(slot));
                cmp = compare(entry + LEAF_ENTRY_HEADER, Short.toUnsignedInt(getShort(entry)), key);
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

    private static int compare(long at, int length, byte[] key) {
        int common = Math.min(length, key.length);
        int i = 0;
        for (; i + 8 <= common; i += 8) {
            long x = getLongBigEndian(at + i);
            long y = (long) ARRAY_LONG_BE.get(key, i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < common; i++) {
            int d = (getByte(at + i) & 0xFF) - (key[i] & 0xFF);
            if (d != 0) {
                return d;
            }
        }
        return length - key.length;
    }

    /** Points at the page at {@code offset} of {@code window}; allocates nothing. */
    VarHandlePage wrap(ByteBuffer window, int offset) {
        this.window = window;
        this.base = offset;
        return this;
    }

    int count() {
        return Short.toUnsignedInt((short) SHORT.get(window, base + COUNT));
    }

    int prefixLength() {
        return window.get(base + PREFIX_LENGTH) & 0xFF;
    }

    /** Offset of entry {@code i} within the page. */
    int entry(int i) {
        return Short.toUnsignedInt((short) SHORT.get(window, base + SLOTS + SLOT_SIZE * i));
    }

    /** Hint of entry {@code i}: the 4 key bytes after the page prefix, as a big-endian number. */
    int hint(int i) {
        return (int) INT.get(window, base + SLOTS + SLOT_SIZE * i + 2);
    }

    /** Index of the key in the leaf, or {@code -(insertion point + 1)}: {@code Node.searchLeaf} over a buffer. */
    int searchLeaf(byte[] key) {
        int n = count();
        int prefix = prefixLength();
        int outside = comparePrefix(key, prefix);
        if (outside != 0) {
            return outside < 0 ? -1 : -(n + 1);
        }
        int hint = hintOf(key, prefix);
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = Integer.compareUnsigned(hint(mid), hint);
            if (cmp == 0) {
                int off = base + entry(mid);
                int length = Short.toUnsignedInt((short) SHORT.get(window, off));
                cmp = compare(off + LEAF_ENTRY_HEADER, length, key);
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

    private int comparePrefix(byte[] key, int length) {
        for (int i = 0; i < length; i++) {
            if (i >= key.length) {
                return -1;
            }
            int a = key[i] & 0xFF;
            int b = window.get(base + 32 + i) & 0xFF;
            if (a != b) {
                return a - b;
            }
        }
        return 0;
    }

    static int hintOf(byte[] key, int prefix) {
        int hint = 0;
        for (int i = 0; i < 4; i++) {
            int at = prefix + i;
            hint = (hint << 8) | (at < key.length ? key[at] & 0xFF : 0);
        }
        return hint;
    }

    /** Unsigned order of the {@code length} bytes at window offset {@code at} against {@code key}. */
    private int compare(int at, int length, byte[] key) {
        int common = Math.min(length, key.length);
        int i = 0;
        for (; i + 8 <= common; i += 8) {
            long x = (long) LONG_BE.get(window, at + i);
            long y = (long) ARRAY_LONG_BE.get(key, i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < common; i++) {
            int x = window.get(at + i) & 0xFF;
            int y = key[i] & 0xFF;
            if (x != y) {
                return x - y;
            }
        }
        return length - key.length;
    }
}
