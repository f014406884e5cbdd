// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.nio.ByteOrder;
import java.util.SplittableRandom;

import org.agrona.DirectBuffer;

/**
 * The db_bench key and value shapes, made the same way for every store.
 *
 * <p>A key is 16 ASCII decimal digits. Entry {@code i} lives under the number {@code 2i}; the odd
 * numbers between are keys that never exist, so a miss descends to a real leaf as a hit does.
 * A value starts with its entry's index (8 bytes, big-endian) so reads can be verified; the rest
 * comes from a pool of half-compressible bytes, as db_bench's compression ratio 0.5 makes them.
 */
public final class Workload {
    public static final int KEY_SIZE = 16;
    public static final int VALUE_SIZE = 100;
    public static final long SEED = 301;

    private static final int POOL_SIZE = 1 << 20;
    private final byte[] pool = new byte[POOL_SIZE + 128];

    public Workload() {
        SplittableRandom rng = new SplittableRandom(SEED);
        // Pieces of 100 bytes: 50 random bytes, then those 50 again.
        for (int at = 0; at + 100 <= pool.length; at += 100) {
            for (int i = 0; i < 50; i++) {
                pool[at + i] = (byte) (' ' + rng.nextInt(95));
            }
            System.arraycopy(pool, at, pool, at + 50, 50);
        }
    }

    /**
     * Writes the 16-digit decimal of {@code number} (below 10^16) into {@code key}. Every store's
     * time per operation includes this, so it is kept cheap: one long division, then two digits per
     * int step; a digit at a time in long arithmetic took a sixth of mvbt's time per put.
     */
    public static void key(long number, byte[] key) {
        if (number < 0 || number >= 10_000_000_000_000_000L) {
            throw new IllegalArgumentException("key number out of 16 digits: " + number);
        }
        eightDigits((int) (number / 100_000_000), key, 0);
        eightDigits((int) (number % 100_000_000), key, 8);
    }

    private static final byte[] DIGIT_PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    private static void eightDigits(int value, byte[] key, int at) {
        int v = value;
        for (int p = at + 6; p >= at; p -= 2) {
            int rest = v / 100;
            int pair = 2 * (v - rest * 100);
            key[p] = DIGIT_PAIRS[pair];
            key[p + 1] = DIGIT_PAIRS[pair + 1];
            v = rest;
        }
    }

    /** Key of entry {@code index}. */
    public static void presentKey(long index, byte[] key) {
        key(2 * index, key);
    }

    /** A key between entry {@code index} and the next one, never written. */
    public static void missingKey(long index, byte[] key) {
        key(2 * index + 1, key);
    }

    /** The number a key encodes. */
    public static long number(DirectBuffer key) {
        if (key.capacity() != KEY_SIZE) {
            throw new VerificationException("key of " + key.capacity() + " bytes, expected " + KEY_SIZE);
        }
        long n = 0;
        for (int p = 0; p < KEY_SIZE; p++) {
            int d = key.getByte(p) - '0';
            if (d < 0 || d > 9) {
                throw new VerificationException("key byte " + p + " is not a digit");
            }
            n = n * 10 + d;
        }
        return n;
    }

    /** Fills {@code value} for entry {@code index}; {@code generation} varies the bytes on overwrite. */
    public void value(long index, int generation, byte[] value) {
        putLong(value, 0, index);
        int offset = (int) Long.remainderUnsigned(index * 31 + generation * 17L, POOL_SIZE - 8);
        int rest = value.length - 8;
        int done = 0;
        while (done < rest) {
            int n = Math.min(rest - done, POOL_SIZE - offset);
            System.arraycopy(pool, offset, value, 8 + done, n);
            done += n;
            offset = 0;
        }
    }

    static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    /** Checks that {@code value} is entry {@code index}'s, of {@code length} bytes. */
    public static void checkValue(DirectBuffer value, long index, int length) {
        if (value.capacity() != length) {
            throw new VerificationException("value of entry " + index + " has " + value.capacity()
                    + " bytes, expected " + length);
        }
        long got = value.getLong(0, ByteOrder.BIG_ENDIAN);
        if (got != index) {
            throw new VerificationException("value under the key of entry " + index + " belongs to entry " + got);
        }
    }
}
