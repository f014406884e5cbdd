// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The layout of a backup delta file (docs/format.md, "Backup delta file"): a header, blocks of
 * records each with its own CRC-32C, and a trailer that counts them and checks the whole file, so
 * that a torn, truncated or damaged file is found before any of it is applied. Little-endian, as the
 * store's pages are.
 */
final class DeltaFormat {
    /** The file's first eight bytes read "mvbtdel1". */
    static final long MAGIC = Long.reverseBytes(0x6d76627464656c31L);
    static final int VERSION = 1;
    /** magic, version, link, chain id, store id, from, to, flags, header CRC. */
    static final int HEADER_BYTES = 56;
    /** end marker, records, blocks, payload bytes, CRC of all before the trailer, trailer CRC. */
    static final int TRAILER_BYTES = 4 + 8 + 8 + 8 + 4 + 4;
    /** A block is written once its records reach this many bytes; a record never spans two blocks. */
    static final int BLOCK_TARGET = 64 * 1024;

    /** The following PUT and DELETE records are in this tree. */
    static final byte TREE = 1;
    /** A tree the base lacks; it is also selected, as by {@link #TREE}. */
    static final byte CREATE = 2;
    /** A tree the new revision lacks. */
    static final byte DROP = 3;
    /** A key and its new value. */
    static final byte PUT = 4;
    /** A key removed. */
    static final byte DELETE = 5;

    private DeltaFormat() {
    }

    /** The fixed part of a delta: which chain and link it is and which revisions it joins. */
    record Header(int link, long chainId, long storeId, long from, long to) {
        byte[] bytes() {
            ByteBuffer b = buffer(HEADER_BYTES);
            b.putLong(MAGIC).putInt(VERSION).putInt(link).putLong(chainId).putLong(storeId).putLong(from).putLong(to)
                    .putInt(0);
            b.putInt(crc(b.array(), 0, HEADER_BYTES - 4));
            return b.array();
        }
    }

    static ByteBuffer buffer(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    static int crc(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /** Unsigned LEB128: lengths cost one byte below 128. */
    static void putVarint(GrowingBytes out, int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    /** A byte array that grows, for one block's records. */
    static final class GrowingBytes {
        byte[] bytes = new byte[BLOCK_TARGET + 1024];
        int length;

        void put(byte b) {
            ensure(1);
            bytes[length++] = b;
        }

        void put(org.agrona.DirectBuffer from) {
            int n = from.capacity();
            ensure(n);
            from.getBytes(0, bytes, length, n);
            length += n;
        }

        void put(byte[] from) {
            ensure(from.length);
            System.arraycopy(from, 0, bytes, length, from.length);
            length += from.length;
        }

        private void ensure(int more) {
            if (length + more > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
            }
        }
    }
}
