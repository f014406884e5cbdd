// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.agrona.UnsafeAccess.UNSAFE;

/**
 * The 24-byte header every data page starts with (little-endian), read and written at the page's
 * memory address:
 *
 * <pre>
 *  0  u32 checksum   CRC32C of bytes 5 to the end of the page (of the whole run for overflow pages)
 *  4  u8  flags      SEALED once the checksum is valid (outside the checksum: it is set after it)
 *  5  u8  type       LEAF, BRANCH, OVERFLOW, FREE_BITS, FREE_INDEX
 *  6  u16 count      entries (leaf and branch pages)
 *  8  u64 revision   the revision that wrote the page
 * 16  u64 pageNo     where the page belongs, so a misplaced page is caught
 * </pre>
 */
public final class PageHeader {
    public static final int CHECKSUM = 0;
    public static final int FLAGS = 4;
    public static final int TYPE = 5;
    /** The checksum covers the page from here on. */
    public static final int CHECKSUMMED_FROM = 5;
    public static final int COUNT = 6;
    public static final int REVISION = 8;
    public static final int PAGE_NO = 16;
    public static final int SIZE = 24;

    public static final int TYPE_LEAF = 1;
    public static final int TYPE_BRANCH = 2;
    public static final int TYPE_OVERFLOW = 3;
    public static final int TYPE_FREE_BITS = 4;
    public static final int TYPE_FREE_INDEX = 5;

    /** The checksum field holds the CRC32C of the page (or run). */
    public static final int FLAG_SEALED = 1;

    private PageHeader() {
    }

    public static void init(long addr, int type, long pageNo, long revision) {
        UNSAFE.putInt(addr + CHECKSUM, 0);
        UNSAFE.putByte(addr + TYPE, (byte) type);
        UNSAFE.putByte(addr + FLAGS, (byte) 0);
        UNSAFE.putShort(addr + COUNT, (short) 0);
        UNSAFE.putLong(addr + REVISION, revision);
        UNSAFE.putLong(addr + PAGE_NO, pageNo);
    }

    public static int type(long addr) {
        return UNSAFE.getByte(addr + TYPE) & 0xFF;
    }

    public static long revision(long addr) {
        return UNSAFE.getLong(addr + REVISION);
    }

    public static long pageNo(long addr) {
        return UNSAFE.getLong(addr + PAGE_NO);
    }

    public static boolean isSealed(long addr) {
        return (UNSAFE.getByte(addr + FLAGS) & FLAG_SEALED) != 0;
    }

    public static int checksum(long addr) {
        return UNSAFE.getInt(addr + CHECKSUM);
    }

    /** Stores a checksum and then marks the page sealed, in that order, for readers that look. */
    public static void seal(long addr, int checksum) {
        UNSAFE.putInt(addr + CHECKSUM, checksum);
        UNSAFE.storeFence();
        UNSAFE.putByte(addr + FLAGS, (byte) (UNSAFE.getByte(addr + FLAGS) | FLAG_SEALED));
    }

    public static String typeName(int type) {
        switch (type) {
            case TYPE_LEAF:
                return "leaf";
            case TYPE_BRANCH:
                return "branch";
            case TYPE_OVERFLOW:
                return "overflow";
            case TYPE_FREE_BITS:
                return "free-space bitmap";
            case TYPE_FREE_INDEX:
                return "free-space index";
            default:
                return "unknown type " + type;
        }
    }
}
