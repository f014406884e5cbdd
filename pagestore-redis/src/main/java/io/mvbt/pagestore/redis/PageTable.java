package io.mvbt.pagestore.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Page number to memory address, read by any thread without a lock and changed under the owner's
 * lock: open addressing with linear probing in two parallel arrays. A change publishes the value
 * before the key, so a reader that finds a key finds its value; growing builds new arrays and
 * publishes them whole, so a reader still probing the old ones may miss a newer page, and looks
 * again under the lock before it loads anything.
 */
final class PageTable {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final long EMPTY = -1;
    private static final long REMOVED = -2;

    private static final class Arrays {
        final long[] keys;
        final long[] values;
        final int mask;

        Arrays(int capacity) {
            keys = new long[capacity];
            values = new long[capacity];
            mask = capacity - 1;
            java.util.Arrays.fill(keys, EMPTY);
        }
    }

    private volatile Arrays table = new Arrays(1024);
    /** Live keys and removed markers (the owner's). */
    private int size;
    private int used;

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /** The address of {@code pageNo}, or 0 if it has none. */
    long get(long pageNo) {
        Arrays t = table;
        for (int i = slot(pageNo, t.mask); ; i = (i + 1) & t.mask) {
            long k = (long) LONGS.getAcquire(t.keys, i);
            if (k == pageNo) {
                return t.values[i];
            }
            if (k == EMPTY) {
                return 0;
            }
        }
    }

    /** Maps {@code pageNo} (not mapped now) to {@code address}; the caller holds the owner's lock. */
    void put(long pageNo, long address) {
        if ((used + 1) * 2 > table.keys.length) {
            rebuild(size + 1 > table.keys.length / 4 ? table.keys.length * 2 : table.keys.length);
        }
        Arrays t = table;
        int i = slot(pageNo, t.mask);
        while (t.keys[i] != EMPTY && t.keys[i] != REMOVED) {
            i = (i + 1) & t.mask;
        }
        if (t.keys[i] == EMPTY) {
            used++;
        }
        t.values[i] = address;
        LONGS.setRelease(t.keys, i, pageNo);
        size++;
    }

    /** Unmaps {@code pageNo}; returns its address, or 0. The caller holds the owner's lock. */
    long remove(long pageNo) {
        Arrays t = table;
        for (int i = slot(pageNo, t.mask); ; i = (i + 1) & t.mask) {
            long k = t.keys[i];
            if (k == pageNo) {
                long address = t.values[i];
                LONGS.setRelease(t.keys, i, REMOVED);
                size--;
                return address;
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
        Arrays old = table;
        Arrays t = new Arrays(capacity);
        for (int j = 0; j < old.keys.length; j++) {
            long k = old.keys[j];
            if (k >= 0) {
                int i = slot(k, t.mask);
                while (t.keys[i] != EMPTY) {
                    i = (i + 1) & t.mask;
                }
                t.keys[i] = k;
                t.values[i] = old.values[j];
            }
        }
        used = size;
        table = t;
    }
}
