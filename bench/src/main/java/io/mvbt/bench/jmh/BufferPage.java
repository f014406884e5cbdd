// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.jmh;

import java.nio.ByteBuffer;

/**
 * Prototype (docs/proposals/page-memory-without-unsafe.md): {@link VarHandlePage}'s page object, read
 * through the window's own absolute getters ({@link ByteBuffer#getShort(int)}, {@code getInt},
 * {@code getLong}) instead of VarHandles. The window must be in little-endian order, the page
 * format's; keys compare as big-endian longs, so a long read is byte-swapped, as
 * {@code io.mvbt.btree.Keys} does.
 */
final class BufferPage {
    static {
        VarHandlePage.loadAccessSignatureClasses();
    }

    private ByteBuffer window;
    private int base;

    /** Points at the page at {@code offset} of {@code window}; allocates nothing. */
    BufferPage wrap(ByteBuffer window, int offset) {
        this.window = window;
        this.base = offset;
        return this;
    }

    /** Index of the key in the leaf, or {@code -(insertion point + 1)}: {@code Node.searchLeaf} over a buffer. */
    int searchLeaf(byte[] key) {
        ByteBuffer w = window;
        int page = base;
        int n = Short.toUnsignedInt(w.getShort(page + VarHandlePage.COUNT));
        int prefix = w.get(page + VarHandlePage.PREFIX_LENGTH) & 0xFF;
        for (int i = 0; i < prefix; i++) {
            if (i >= key.length) {
                return -1;
            }
            int d = (key[i] & 0xFF) - (w.get(page + 32 + i) & 0xFF);
            if (d != 0) {
                return d < 0 ? -1 : -(n + 1);
            }
        }
        int hint = VarHandlePage.hintOf(key, prefix);
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int slot = page + VarHandlePage.SLOTS + VarHandlePage.SLOT_SIZE * mid;
            int cmp = Integer.compareUnsigned(w.getInt(slot + 2), hint);
            if (cmp == 0) {
                int off = page + Short.toUnsignedInt(w.getShort(slot));
                cmp = compare(w, off + VarHandlePage.LEAF_ENTRY_HEADER, Short.toUnsignedInt(w.getShort(off)), key);
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

    private static int compare(ByteBuffer w, int at, int length, byte[] key) {
        int common = Math.min(length, key.length);
        int i = 0;
        for (; i + 8 <= common; i += 8) {
            long x = Long.reverseBytes(w.getLong(at + i));
            long y = (long) VarHandlePage.ARRAY_LONG_BE.get(key, i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < common; i++) {
            int x = w.get(at + i) & 0xFF;
            int y = key[i] & 0xFF;
            if (x != y) {
                return x - y;
            }
        }
        return length - key.length;
    }
}
