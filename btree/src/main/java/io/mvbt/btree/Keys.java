// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import java.lang.ref.Reference;

import org.agrona.DirectBuffer;
import static org.agrona.UnsafeAccess.UNSAFE;

/**
 * Keys order as unsigned bytes, a prefix before its extensions. Keys are compared where they lie:
 * a key is an (object, offset) pair as {@code sun.misc.Unsafe} takes it, so a page address (object null)
 * and a byte array or direct buffer of the caller compare without copying.
 */
public final class Keys {
    private Keys() {
    }

    /** Compares two keys given as (base, offset, length) triples. */
    public static int compare(Object aBase, long aOff, int aLen, Object bBase, long bOff, int bLen) {
        int common = Math.min(aLen, bLen);
        int i = 0;
        // Eight bytes at a time: byte-swapped (big-endian) longs compare like their bytes.
        for (; i + 8 <= common; i += 8) {
            long x = UNSAFE.getLong(aBase, aOff + i);
            long y = UNSAFE.getLong(bBase, bOff + i);
            if (x != y) {
                return Long.compareUnsigned(Long.reverseBytes(x), Long.reverseBytes(y));
            }
        }
        for (; i < common; i++) {
            int x = UNSAFE.getByte(aBase, aOff + i) & 0xFF;
            int y = UNSAFE.getByte(bBase, bOff + i) & 0xFF;
            if (x != y) {
                return x - y;
            }
        }
        return aLen - bLen;
    }

    /** Compares a key in a buffer with a key at a memory address. */
    public static int compare(DirectBuffer a, int aOff, int aLen, long bAddress, int bLen) {
        try {
            return compare(a.byteArray(), a.addressOffset() + aOff, aLen, null, bAddress, bLen);
        } finally {
            Reference.reachabilityFence(a);
        }
    }

    /** Length of the common prefix of two keys at memory addresses. */
    public static int commonPrefix(long a, int aLen, long b, int bLen) {
        int common = Math.min(aLen, bLen);
        int i = 0;
        while (i < common && UNSAFE.getByte(a + i) == UNSAFE.getByte(b + i)) {
            i++;
        }
        return i;
    }

    /** Unsigned byte comparison of two arrays. */
    public static int compare(byte[] a, byte[] b) {
        return java.util.Arrays.compareUnsigned(a, b);
    }
}
