// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Page number to memory address, read by any thread without a lock and changed under the owner's
 * lock: open addressing with linear probing, each key beside its value (one cache line per probe).
 * A change publishes the value before the key, so a reader that finds a key finds its value;
 * growing builds a new array and publishes it whole, so a reader still probing the old one may miss
 * a newer page, and looks again under the lock before it loads anything.
 */
final class PageTable {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final long EMPTY = -1;
    private static final long REMOVED = -2;

    /** Key at 2i, value at 2i + 1. */
    private volatile long[] table = newTable(1024);
    /** Live keys, and keys plus removed markers (the owner's). */
    private int size;
    private int used;

    private static long[] newTable(int capacity) {
        long[] t = new long[capacity * 2];
        for (int i = 0; i < t.length; i += 2) {
            t[i] = EMPTY;
        }
        return t;
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /** The address of {@code pageNo}, or 0 if it has none. */
    long get(long pageNo) {
        long[] t = table;
        int mask = (t.length >> 1) - 1;
        for (int i = slot(pageNo, mask); ; i = (i + 1) & mask) {
            long k = (long) LONGS.getAcquire(t, 2 * i);
            if (k == pageNo) {
                return t[2 * i + 1];
            }
            if (k == EMPTY) {
                return 0;
            }
        }
    }

    /** Maps {@code pageNo} (not mapped now) to {@code address}; the caller holds the owner's lock. */
    void put(long pageNo, long address) {
        int capacity = table.length >> 1;
        if ((used + 1) * 2 > capacity) {
            rebuild((size + 1) * 4 > capacity ? capacity * 2 : capacity);
        }
        long[] t = table;
        int mask = (t.length >> 1) - 1;
        int i = slot(pageNo, mask);
        while (t[2 * i] != EMPTY && t[2 * i] != REMOVED) {
            i = (i + 1) & mask;
        }
        if (t[2 * i] == EMPTY) {
            used++;
        }
        t[2 * i + 1] = address;
        LONGS.setRelease(t, 2 * i, pageNo);
        size++;
    }

    /** Unmaps {@code pageNo}; returns its address, or 0. The caller holds the owner's lock. */
    long remove(long pageNo) {
        long[] t = table;
        int mask = (t.length >> 1) - 1;
        for (int i = slot(pageNo, mask); ; i = (i + 1) & mask) {
            long k = t[2 * i];
            if (k == pageNo) {
                LONGS.setRelease(t, 2 * i, REMOVED);
                size--;
                return t[2 * i + 1];
            }
            if (k == EMPTY) {
                return 0;
            }
        }
    }

    /** Pages mapped. */
    int size() {
        return size;
    }

    private void rebuild(int capacity) {
        long[] old = table;
        long[] t = newTable(capacity);
        int mask = capacity - 1;
        for (int j = 0; j < old.length; j += 2) {
            long k = old[j];
            if (k >= 0) {
                int i = slot(k, mask);
                while (t[2 * i] != EMPTY) {
                    i = (i + 1) & mask;
                }
                t[2 * i] = k;
                t[2 * i + 1] = old[j + 1];
            }
        }
        used = size;
        table = t;
    }
}
