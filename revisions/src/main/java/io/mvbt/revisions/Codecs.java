// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

import org.agrona.DirectBuffer;

/**
 * Codecs for the common types, order-preserving for keys. Layouts (all big-endian, so that the
 * unsigned byte order is the numeric order):
 *
 * <table>
 * <caption>Layouts</caption>
 * <tr><th>codec</th><th>bytes</th><th>order</th></tr>
 * <tr><td>{@link #LONG}</td><td>8: the value with its sign bit flipped</td><td>{@link Long#compare}</td></tr>
 * <tr><td>{@link #INT}</td><td>4: the value with its sign bit flipped</td><td>{@link Integer#compare}</td></tr>
 * <tr><td>{@link #STRING}</td><td>UTF-8</td><td>by code point (as {@link String#compareTo} except
 * for characters outside the BMP against U+E000..U+FFFF, which UTF-16 orders the other way)</td></tr>
 * <tr><td>{@link #BYTES}</td><td>the bytes</td><td>{@link Arrays#compareUnsigned(byte[], byte[])}</td></tr>
 * <tr><td>{@link #UUID}</td><td>16: most then least significant 64 bits</td><td>unsigned, the order of
 * the UUIDs' text (not {@link UUID#compareTo}, which compares signed halves)</td></tr>
 * <tr><td>{@link #INSTANT}</td><td>12: epoch seconds with the sign bit flipped, then nanoseconds</td>
 * <td>{@link Instant#compareTo}</td></tr>
 * <tr><td>{@link #pair}</td><td>the first component, then the second; a first component of varying
 * length has each 0x00 written as 0x00 0xFF and ends with 0x00 0x00</td><td>by first, then second</td></tr>
 * </table>
 *
 * Strings must be well-formed UTF-16 (an unpaired surrogate is refused: UTF-8 cannot hold it).
 */
public final class Codecs {
    private Codecs() {
    }

    public static final Codec<Long> LONG = new Codec<>() {
        @Override
        public byte[] encode(Long value) {
            byte[] b = new byte[8];
            long v = value ^ Long.MIN_VALUE;
            for (int i = 7; i >= 0; i--) {
                b[i] = (byte) v;
                v >>>= 8;
            }
            return b;
        }

        @Override
        public Long decode(DirectBuffer buffer, int offset, int length) {
            checkLength(8, length);
            return buffer.getLong(offset, java.nio.ByteOrder.BIG_ENDIAN) ^ Long.MIN_VALUE;
        }

        @Override
        public int fixedLength() {
            return 8;
        }
    };

    public static final Codec<Integer> INT = new Codec<>() {
        @Override
        public byte[] encode(Integer value) {
            int v = value ^ Integer.MIN_VALUE;
            return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
        }

        @Override
        public Integer decode(DirectBuffer buffer, int offset, int length) {
            checkLength(4, length);
            return buffer.getInt(offset, java.nio.ByteOrder.BIG_ENDIAN) ^ Integer.MIN_VALUE;
        }

        @Override
        public int fixedLength() {
            return 4;
        }
    };

    public static final Codec<String> STRING = new Codec<>() {
        @Override
        public byte[] encode(String value) {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (Character.isHighSurrogate(c) && i + 1 < value.length()
                        && Character.isLowSurrogate(value.charAt(i + 1))) {
                    i++;
                } else if (Character.isSurrogate(c)) {
                    throw new IllegalArgumentException("an unpaired surrogate at index " + i
                            + ": a string key must be well-formed UTF-16");
                }
            }
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(DirectBuffer buffer, int offset, int length) {
            return buffer.getStringWithoutLengthUtf8(offset, length);
        }
    };

    public static final Codec<byte[]> BYTES = new Codec<>() {
        @Override
        public byte[] encode(byte[] value) {
            return value.clone();
        }

        @Override
        public byte[] decode(DirectBuffer buffer, int offset, int length) {
            byte[] b = new byte[length];
            buffer.getBytes(offset, b);
            return b;
        }
    };

    public static final Codec<UUID> UUID = new Codec<>() {
        @Override
        public byte[] encode(UUID value) {
            byte[] b = new byte[16];
            put(b, 0, value.getMostSignificantBits());
            put(b, 8, value.getLeastSignificantBits());
            return b;
        }

        @Override
        public UUID decode(DirectBuffer buffer, int offset, int length) {
            checkLength(16, length);
            return new UUID(buffer.getLong(offset, java.nio.ByteOrder.BIG_ENDIAN),
                    buffer.getLong(offset + 8, java.nio.ByteOrder.BIG_ENDIAN));
        }

        @Override
        public int fixedLength() {
            return 16;
        }
    };

    public static final Codec<Instant> INSTANT = new Codec<>() {
        @Override
        public byte[] encode(Instant value) {
            byte[] b = new byte[12];
            put(b, 0, value.getEpochSecond() ^ Long.MIN_VALUE);
            int n = value.getNano();
            b[8] = (byte) (n >>> 24);
            b[9] = (byte) (n >>> 16);
            b[10] = (byte) (n >>> 8);
            b[11] = (byte) n;
            return b;
        }

        @Override
        public Instant decode(DirectBuffer buffer, int offset, int length) {
            checkLength(12, length);
            return Instant.ofEpochSecond(buffer.getLong(offset, java.nio.ByteOrder.BIG_ENDIAN) ^ Long.MIN_VALUE,
                    buffer.getInt(offset + 8, java.nio.ByteOrder.BIG_ENDIAN));
        }

        @Override
        public int fixedLength() {
            return 12;
        }
    };

    /**
     * Two components in one key, ordered by the first, then the second: a table's index of
     * (attribute value, entry id), say. A first component of varying length is escaped so that no
     * encoding is a prefix of another's first part.
     */
    public static <A, B> Codec<Pair<A, B>> pair(Codec<A> first, Codec<B> second) {
        Objects.requireNonNull(first);
        Objects.requireNonNull(second);
        return new Codec<>() {
            @Override
            public byte[] encode(Pair<A, B> value) {
                byte[] a = first.encode(value.first());
                byte[] b = second.encode(value.second());
                byte[] head = first.fixedLength() >= 0 ? a : escape(a);
                byte[] out = Arrays.copyOf(head, head.length + b.length);
                System.arraycopy(b, 0, out, head.length, b.length);
                return out;
            }

            @Override
            public Pair<A, B> decode(DirectBuffer buffer, int offset, int length) {
                int fixed = first.fixedLength();
                if (fixed >= 0) {
                    if (length < fixed) {
                        throw new IllegalArgumentException("a pair of " + length + " bytes, shorter than its first part");
                    }
                    return new Pair<>(first.decode(buffer, offset, fixed),
                            second.decode(buffer, offset + fixed, length - fixed));
                }
                byte[] a = new byte[length];
                int n = 0;
                int at = offset;
                int end = offset + length;
                while (true) {
                    if (at + 1 >= end) {
                        throw new IllegalArgumentException("a pair's first component has no end");
                    }
                    byte x = buffer.getByte(at++);
                    if (x != 0) {
                        a[n++] = x;
                        continue;
                    }
                    byte y = buffer.getByte(at++);
                    if (y == 0) {
                        break;
                    }
                    if (y != (byte) 0xFF) {
                        throw new IllegalArgumentException("a pair's first component is not escaped");
                    }
                    a[n++] = 0;
                }
                A decoded = first.decode(new org.agrona.concurrent.UnsafeBuffer(a, 0, n), 0, n);
                return new Pair<>(decoded, second.decode(buffer, at, end - at));
            }

            @Override
            public int fixedLength() {
                int a = first.fixedLength();
                int b = second.fixedLength();
                return a >= 0 && b >= 0 ? a + b : -1;
            }
        };
    }

    /** 0x00 as 0x00 0xFF, then 0x00 0x00: order kept, and no escaped value a prefix of another's. */
    private static byte[] escape(byte[] a) {
        int zeros = 0;
        for (byte x : a) {
            if (x == 0) {
                zeros++;
            }
        }
        byte[] out = new byte[a.length + zeros + 2];
        int n = 0;
        for (byte x : a) {
            out[n++] = x;
            if (x == 0) {
                out[n++] = (byte) 0xFF;
            }
        }
        return out;
    }

    private static void put(byte[] b, int at, long value) {
        long v = value;
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    private static void checkLength(int expected, int length) {
        if (length != expected) {
            throw new IllegalArgumentException("an encoding of " + expected + " bytes, not " + length);
        }
    }
}
