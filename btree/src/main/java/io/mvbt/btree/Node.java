// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.agrona.UnsafeAccess.UNSAFE;

/**
 * Leaf and branch pages: a slotted page, read and written at its memory address. After the common
 * {@link PageHeader}:
 *
 * <pre>
 * 24  u32 contentStart  lowest offset of entry bytes (entries grow down from the page end)
 * 28  u8  level         0 for leaves, parent = child + 1
 * 29  u8  prefixLength  0 to 12: every key of the page (but a branch's first) starts with these bytes
 * 30  u16 garbage       bytes of removed entries not yet compacted away
 * 32  12 bytes prefix   the common prefix, zero-padded
 * 44  slots[count]      6 bytes each, in key order: u16 entry offset, u32 hint
 * </pre>
 *
 * The hint of a key is the 4 bytes after the page prefix (zero-padded), as an unsigned big-endian
 * number: a smaller hint means a smaller key, so a binary search compares hints in the slot array
 * (a few adjacent cache lines) and reads a key only when hints are equal. Without hints every probe
 * reads a key somewhere else in the page, one cache miss each.
 *
 * A leaf entry is {@code u16 keyLength, u16 valueLength, key, value}; a value length of
 * {@link #OVERFLOW_MARK} means the value lives in overflow pages and the entry holds a 20-byte
 * reference ({@code u64 page, u64 revision, u32 length}). A branch entry is
 * {@code u16 keyLength, u16 flags, u64 child, u64 childRevision, u64 entriesBelow, key}; the key
 * of entry 0 is empty (it stands for minus infinity), the key of entry i separates child i-1 (all
 * keys smaller) from child i (all keys equal or greater). Flag {@link #INLINE_ONLY} says that no
 * value under the child lives in overflow pages, so freeing the child's subtree need not read its
 * leaves. It may be clear where it could be set (stores of formats 1 and 2 never set it), never
 * the reverse.
 *
 * <p>Every method trusts the page: pages are validated ({@link PageValidator}) before first use.
 */
public final class Node {
    public static final int CONTENT_START = 24;
    public static final int LEVEL = 28;
    public static final int PREFIX_LENGTH = 29;
    public static final int GARBAGE = 30;
    public static final int PREFIX = 32;
    public static final int MAX_PREFIX = 12;
    public static final int SLOTS = 44;
    public static final int SLOT_SIZE = 6;

    public static final int LEAF_ENTRY_HEADER = 4;
    public static final int OVERFLOW_MARK = 0xFFFF;
    public static final int OVERFLOW_REF = 20;

    public static final int BRANCH_FLAGS = 2;
    public static final int BRANCH_CHILD = 4;
    public static final int BRANCH_CHILD_REV = 12;
    public static final int BRANCH_COUNT = 20;
    public static final int BRANCH_ENTRY_HEADER = 28;
    /** Branch entry flag: no value in the child's subtree is in overflow pages. */
    public static final int INLINE_ONLY = 1;

    private Node() {
    }

    public static void init(long addr, boolean leaf, int level, long pageNo, long revision, int pageSize) {
        PageHeader.init(addr, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH, pageNo, revision);
        UNSAFE.putInt(addr + CONTENT_START, pageSize);
        UNSAFE.putByte(addr + LEVEL, (byte) level);
        UNSAFE.putByte(addr + PREFIX_LENGTH, (byte) 0);
        UNSAFE.putShort(addr + GARBAGE, (short) 0);
        UNSAFE.setMemory(addr + PREFIX, MAX_PREFIX, (byte) 0);
    }

    public static boolean isLeaf(long addr) {
        return PageHeader.type(addr) == PageHeader.TYPE_LEAF;
    }

    public static int level(long addr) {
        return UNSAFE.getByte(addr + LEVEL) & 0xFF;
    }

    public static int count(long addr) {
        return UNSAFE.getShort(addr + PageHeader.COUNT) & 0xFFFF;
    }

    static void setCount(long addr, int count) {
        UNSAFE.putShort(addr + PageHeader.COUNT, (short) count);
    }

    public static int contentStart(long addr) {
        return UNSAFE.getInt(addr + CONTENT_START);
    }

    public static int garbage(long addr) {
        return UNSAFE.getShort(addr + GARBAGE) & 0xFFFF;
    }

    /** Offset of entry {@code i} within the page. */
    public static int entry(long addr, int i) {
        // Assertions cost nothing unless enabled (every test enables them): they check each access.
        assert i >= 0 && i < count(addr) : "entry " + i + " of a page of " + count(addr);
        int off = UNSAFE.getShort(addr + SLOTS + (long) SLOT_SIZE * i) & 0xFFFF;
        assert off >= SLOTS + SLOT_SIZE * count(addr) : "entry " + i + " at offset " + off + " inside the slots";
        return off;
    }

    /** Hint of entry {@code i}: the 4 key bytes after the page prefix, big-endian. */
    public static int hint(long addr, int i) {
        assert i >= 0 && i < count(addr) : "hint " + i + " of a page of " + count(addr);
        return UNSAFE.getInt(addr + SLOTS + (long) SLOT_SIZE * i + 2);
    }

    public static int prefixLength(long addr) {
        return UNSAFE.getByte(addr + PREFIX_LENGTH) & 0xFF;
    }

    /** The hint of a key given as (base, offset, length), after {@code prefix} bytes. */
    public static int hintOf(Object base, long off, int len, int prefix) {
        int hint = 0;
        for (int i = 0; i < 4; i++) {
            int at = prefix + i;
            hint = (hint << 8) | (at < len ? UNSAFE.getByte(base, off + at) & 0xFF : 0);
        }
        return hint;
    }

    private static void setSlot(long addr, int i, int offset, int hint) {
        long slot = addr + SLOTS + (long) SLOT_SIZE * i;
        UNSAFE.putShort(slot, (short) offset);
        UNSAFE.putInt(slot + 2, hint);
    }

    /** Whether the key entry {@code i} is one that prefix and hints cover (not a branch's first). */
    private static boolean keyed(long addr, int i) {
        return i > 0 || isLeaf(addr);
    }

    /**
     * Makes the prefix the common prefix of the first and last keys (at most 12 bytes) and
     * recomputes every hint: after a page is built or rebuilt, so that hints tell keys apart.
     */
    public static void refreshPrefix(long addr) {
        int n = count(addr);
        int first = isLeaf(addr) ? 0 : 1;
        int length = 0;
        if (n > first) {
            long a = keyAddress(addr, first);
            long b = keyAddress(addr, n - 1);
            length = Math.min(MAX_PREFIX, Keys.commonPrefix(a, keyLength(addr, first), b, keyLength(addr, n - 1)));
            UNSAFE.setMemory(addr + PREFIX, MAX_PREFIX, (byte) 0);
            UNSAFE.copyMemory(a, addr + PREFIX, length);
        }
        setPrefix(addr, length);
    }

    /** Shortens the prefix to {@code length} bytes and recomputes every hint. */
    private static void setPrefix(long addr, int length) {
        UNSAFE.putByte(addr + PREFIX_LENGTH, (byte) length);
        UNSAFE.setMemory(addr + PREFIX + length, MAX_PREFIX - length, (byte) 0);
        int n = count(addr);
        for (int i = 0; i < n; i++) {
            int h = keyed(addr, i) ? hintOf(null, keyAddress(addr, i), keyLength(addr, i), length) : 0;
            UNSAFE.putInt(addr + SLOTS + (long) SLOT_SIZE * i + 2, h);
        }
    }

    /**
     * Compares a key with the page prefix: negative if the key sorts before every key of the page
     * that the prefix covers, positive if after, 0 if it starts with the prefix.
     */
    private static int comparePrefix(long addr, Object keyBase, long keyOff, int keyLen) {
        int length = prefixLength(addr);
        for (int i = 0; i < length; i++) {
            if (i >= keyLen) {
                return -1;
            }
            int a = UNSAFE.getByte(keyBase, keyOff + i) & 0xFF;
            int b = UNSAFE.getByte(addr + PREFIX + i) & 0xFF;
            if (a != b) {
                return a - b;
            }
        }
        return 0;
    }

    /** Bytes of the entry at offset {@code off}. */
    public static int entrySize(long addr, int off, boolean leaf) {
        int keyLength = UNSAFE.getShort(addr + off) & 0xFFFF;
        if (!leaf) {
            return BRANCH_ENTRY_HEADER + keyLength;
        }
        int valueInfo = UNSAFE.getShort(addr + off + 2) & 0xFFFF;
        return LEAF_ENTRY_HEADER + keyLength + (valueInfo == OVERFLOW_MARK ? OVERFLOW_REF : valueInfo);
    }

    /** Bytes of entries and slots in use. */
    public static int usedBytes(long addr, int pageSize) {
        return pageSize - contentStart(addr) - garbage(addr) + SLOT_SIZE * count(addr);
    }

    /** Bytes available for entries and their slots, after compaction if needed. */
    public static int freeBytes(long addr, int pageSize) {
        return pageSize - SLOTS - usedBytes(addr, pageSize);
    }

    // ---- keys

    public static int keyLength(long addr, int i) {
        return UNSAFE.getShort(addr + entry(addr, i)) & 0xFFFF;
    }

    /** Address of the key of entry {@code i}. */
    public static long keyAddress(long addr, int i) {
        int off = entry(addr, i);
        return addr + off + (isLeaf(addr) ? LEAF_ENTRY_HEADER : BRANCH_ENTRY_HEADER);
    }

    // ---- leaf values

    public static boolean isOverflow(long leaf, int i) {
        return entryIsOverflow(leaf + entry(leaf, i));
    }

    /** Whether a raw leaf entry (at {@code address}) holds a reference to overflow pages. */
    public static boolean entryIsOverflow(long address) {
        return (UNSAFE.getShort(address + 2) & 0xFFFF) == OVERFLOW_MARK;
    }

    /** Address of the inline value (or of the overflow reference) of leaf entry {@code i}. */
    public static long valueAddress(long leaf, int i) {
        int off = entry(leaf, i);
        return leaf + off + LEAF_ENTRY_HEADER + (UNSAFE.getShort(leaf + off) & 0xFFFF);
    }

    /** Length of the inline value of leaf entry {@code i}. */
    public static int inlineValueLength(long leaf, int i) {
        return UNSAFE.getShort(leaf + entry(leaf, i) + 2) & 0xFFFF;
    }

    /** Length of the value of leaf entry {@code i}, inline or in overflow pages. */
    public static int valueLength(long leaf, int i) {
        int off = entry(leaf, i);
        int valueInfo = UNSAFE.getShort(leaf + off + 2) & 0xFFFF;
        if (valueInfo != OVERFLOW_MARK) {
            return valueInfo;
        }
        return UNSAFE.getInt(leaf + off + LEAF_ENTRY_HEADER + (UNSAFE.getShort(leaf + off) & 0xFFFF) + 16);
    }

    // ---- branch children

    public static long child(long branch, int i) {
        return UNSAFE.getLong(branch + entry(branch, i) + BRANCH_CHILD);
    }

    public static long childRevision(long branch, int i) {
        return UNSAFE.getLong(branch + entry(branch, i) + BRANCH_CHILD_REV);
    }

    public static long childCount(long branch, int i) {
        return UNSAFE.getLong(branch + entry(branch, i) + BRANCH_COUNT);
    }

    public static void setChild(long branch, int i, long child, long revision) {
        int off = entry(branch, i);
        UNSAFE.putLong(branch + off + BRANCH_CHILD, child);
        UNSAFE.putLong(branch + off + BRANCH_CHILD_REV, revision);
    }

    public static void setChildCount(long branch, int i, long count) {
        UNSAFE.putLong(branch + entry(branch, i) + BRANCH_COUNT, count);
    }

    /** Whether child {@code i} is known to hold no overflow value anywhere in its subtree. */
    public static boolean inlineOnly(long branch, int i) {
        return entryInlineOnly(branch + entry(branch, i));
    }

    /** As {@link #inlineOnly(long, int)}, for the branch entry at {@code address}. */
    public static boolean entryInlineOnly(long address) {
        return (UNSAFE.getShort(address + BRANCH_FLAGS) & INLINE_ONLY) != 0;
    }

    public static void setInlineOnly(long branch, int i, boolean inlineOnly) {
        UNSAFE.putShort(branch + entry(branch, i) + BRANCH_FLAGS, (short) (inlineOnly ? INLINE_ONLY : 0));
    }

    /**
     * Whether nothing under this page is in overflow pages, as far as it can tell: for a leaf,
     * exactly; for a branch, whether every child is known to be {@link #inlineOnly(long, int)}.
     */
    public static boolean inlineOnly(long addr) {
        int n = count(addr);
        boolean leaf = isLeaf(addr);
        for (int i = 0; i < n; i++) {
            if (leaf ? isOverflow(addr, i) : !inlineOnly(addr, i)) {
                return false;
            }
        }
        return true;
    }

    /** Entries in the subtree under this page. */
    public static long totalCount(long addr) {
        int n = count(addr);
        if (isLeaf(addr)) {
            return n;
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            total += childCount(addr, i);
        }
        return total;
    }

    // ---- search

    /** Index of {@code key} in a leaf, or {@code -(insertion point) - 1}. */
    public static int searchLeaf(long leaf, Object keyBase, long keyOff, int keyLen) {
        int n = count(leaf);
        int outside = comparePrefix(leaf, keyBase, keyOff, keyLen);
        if (outside != 0) {
            return outside < 0 ? -1 : -(n + 1);
        }
        int hint = hintOf(keyBase, keyOff, keyLen, prefixLength(leaf));
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = Integer.compareUnsigned(hint(leaf, mid), hint);
            if (cmp == 0) {
                int off = entry(leaf, mid);
                cmp = Keys.compare(null, leaf + off + LEAF_ENTRY_HEADER, UNSAFE.getShort(leaf + off) & 0xFFFF,
                        keyBase, keyOff, keyLen);
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

    /** Index of the child of a branch whose subtree would hold {@code key}. */
    public static int searchBranch(long branch, Object keyBase, long keyOff, int keyLen) {
        int n = count(branch);
        int outside = comparePrefix(branch, keyBase, keyOff, keyLen);
        if (outside != 0) {
            return outside < 0 ? 0 : n - 1;
        }
        int hint = hintOf(keyBase, keyOff, keyLen, prefixLength(branch));
        int lo = 1;
        int hi = n - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = Integer.compareUnsigned(hint(branch, mid), hint);
            if (cmp == 0) {
                int off = entry(branch, mid);
                cmp = Keys.compare(null, branch + off + BRANCH_ENTRY_HEADER, UNSAFE.getShort(branch + off) & 0xFFFF,
                        keyBase, keyOff, keyLen);
            }
            if (cmp <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    // ---- editing (pages of the running transaction only)

    /**
     * Inserts the raw entry bytes {@code [srcBase+srcOff, +len)} as entry {@code i}. The caller has
     * checked {@link #freeBytes} covers {@code len + SLOT_SIZE}; compacts through {@code scratch}
     * if the free bytes are not contiguous. A key outside the page prefix shortens the prefix.
     */
    public static void insertRaw(long addr, int pageSize, int i, Object srcBase, long srcOff, int len, long scratch) {
        int n = count(addr);
        assert i >= 0 && i <= n : "insert at " + i + " in a page of " + n;
        assert freeBytes(addr, pageSize) >= len + SLOT_SIZE : "insert of " + len + " bytes into a page with "
                + freeBytes(addr, pageSize) + " free";
        int slotsEnd = SLOTS + SLOT_SIZE * n;
        if (contentStart(addr) - slotsEnd < len + SLOT_SIZE) {
            compact(addr, pageSize, scratch);
        }
        int start = contentStart(addr) - len;
        UNSAFE.copyMemory(srcBase, srcOff, null, addr + start, len);
        UNSAFE.putInt(addr + CONTENT_START, start);
        long slot = addr + SLOTS + (long) SLOT_SIZE * i;
        if (i < n) {
            UNSAFE.copyMemory(slot, slot + SLOT_SIZE, (long) SLOT_SIZE * (n - i));
        }
        setCount(addr, n + 1);
        boolean leaf = isLeaf(addr);
        long key = addr + start + (leaf ? LEAF_ENTRY_HEADER : BRANCH_ENTRY_HEADER);
        int keyLength = UNSAFE.getShort(addr + start) & 0xFFFF;
        int prefix = prefixLength(addr);
        int hint = 0;
        if (leaf || i > 0) {
            int shared = Keys.commonPrefix(key, keyLength, addr + PREFIX, prefix);
            if (shared < prefix) {
                setSlot(addr, i, start, 0);
                setPrefix(addr, shared);
                return;
            }
            hint = hintOf(null, key, keyLength, prefix);
        }
        setSlot(addr, i, start, hint);
    }

    /** Appends raw entry bytes as the last entry (no room check beyond contiguity). */
    public static void appendRaw(long addr, int pageSize, Object srcBase, long srcOff, int len, long scratch) {
        insertRaw(addr, pageSize, count(addr), srcBase, srcOff, len, scratch);
    }

    /**
     * Appends a branch entry, encoding it in place; the page must have the room contiguous (true
     * right after {@link #clear}).
     */
    public static void appendBranch(long addr, Object keyBase, long keyOff, int keyLen, long child, long revision,
            long count, boolean inlineOnly) {
        int n = count(addr);
        assert n > 0 || keyLen == 0 : "a branch's first entry with a key of " + keyLen + " bytes";
        assert contentStart(addr) - BRANCH_ENTRY_HEADER - keyLen >= SLOTS + SLOT_SIZE * (n + 1)
                : "branch entry past the room contiguous in the page";
        int start = contentStart(addr) - BRANCH_ENTRY_HEADER - keyLen;
        encodeBranch(addr + start, keyBase, keyOff, keyLen, child, revision, count, inlineOnly);
        UNSAFE.putInt(addr + CONTENT_START, start);
        setCount(addr, n + 1);
        int prefix = prefixLength(addr);
        long key = addr + start + BRANCH_ENTRY_HEADER;
        if (n > 0 && Keys.commonPrefix(key, keyLen, addr + PREFIX, prefix) < prefix) {
            setSlot(addr, n, start, 0);
            setPrefix(addr, Keys.commonPrefix(key, keyLen, addr + PREFIX, prefix));
            return;
        }
        setSlot(addr, n, start, n > 0 ? hintOf(null, key, keyLen, prefix) : 0);
    }

    /** Removes entry {@code i}; its bytes become garbage until the next compaction. */
    public static void remove(long addr, int i) {
        int n = count(addr);
        assert i >= 0 && i < n : "remove of entry " + i + " of " + n;
        boolean leaf = isLeaf(addr);
        int size = entrySize(addr, entry(addr, i), leaf);
        long slot = addr + SLOTS + (long) SLOT_SIZE * i;
        if (i < n - 1) {
            UNSAFE.copyMemory(slot + SLOT_SIZE, slot, (long) SLOT_SIZE * (n - 1 - i));
        }
        setCount(addr, n - 1);
        UNSAFE.putShort(addr + GARBAGE, (short) (garbage(addr) + size));
    }

    /** Removes entries [from, to); their bytes become garbage. */
    public static void removeRange(long addr, int pageSize, int from, int to) {
        if (from >= to) {
            return;
        }
        int n = count(addr);
        assert from >= 0 && to <= n : "remove of entries [" + from + ", " + to + ") of " + n;
        boolean leaf = isLeaf(addr);
        int freed = 0;
        for (int i = from; i < to; i++) {
            freed += entrySize(addr, entry(addr, i), leaf);
        }
        long slots = addr + SLOTS;
        UNSAFE.copyMemory(slots + (long) SLOT_SIZE * to, slots + (long) SLOT_SIZE * from, (long) SLOT_SIZE * (n - to));
        setCount(addr, n - (to - from));
        if (n - (to - from) == 0) {
            UNSAFE.putInt(addr + CONTENT_START, pageSize);
            UNSAFE.putShort(addr + GARBAGE, (short) 0);
        } else {
            UNSAFE.putShort(addr + GARBAGE, (short) (garbage(addr) + freed));
        }
    }

    /** Index of the first key {@code >= key} in a leaf. */
    public static int lowerBound(long leaf, Object keyBase, long keyOff, int keyLen) {
        int pos = searchLeaf(leaf, keyBase, keyOff, keyLen);
        return pos >= 0 ? pos : -pos - 1;
    }

    /**
     * Drops the key of a branch's first entry (it stands for minus infinity), after the entry
     * before it was removed; the key's bytes become garbage.
     */
    public static void clearFirstKey(long branch) {
        int off = entry(branch, 0);
        int keyLength = UNSAFE.getShort(branch + off) & 0xFFFF;
        if (keyLength > 0) {
            UNSAFE.putShort(branch + off, (short) 0);
            UNSAFE.putShort(branch + GARBAGE, (short) (garbage(branch) + keyLength));
        }
    }

    /** Removes every entry. */
    public static void clear(long addr, int pageSize) {
        setCount(addr, 0);
        UNSAFE.putInt(addr + CONTENT_START, pageSize);
        UNSAFE.putShort(addr + GARBAGE, (short) 0);
        UNSAFE.putByte(addr + PREFIX_LENGTH, (byte) 0);
    }

    /** Rewrites the entries so that all free bytes are contiguous. */
    public static void compact(long addr, int pageSize, long scratch) {
        UNSAFE.copyMemory(addr, scratch, pageSize);
        boolean leaf = isLeaf(scratch);
        int n = count(scratch);
        int start = pageSize;
        for (int i = 0; i < n; i++) {
            int off = entry(scratch, i);
            int size = entrySize(scratch, off, leaf);
            start -= size;
            UNSAFE.copyMemory(scratch + off, addr + start, size);
            UNSAFE.putShort(addr + SLOTS + (long) SLOT_SIZE * i, (short) start);
        }
        UNSAFE.putInt(addr + CONTENT_START, start);
        UNSAFE.putShort(addr + GARBAGE, (short) 0);
    }

    /**
     * Copies a page into a fresh page of the running transaction, compacting it on the way if it
     * holds garbage. Without garbage it is two memory copies (header and slots, then entries),
     * leaving the free gap between them untouched.
     */
    public static void copyCompacted(long from, long to, int pageSize, long pageNo, long revision) {
        if (garbage(from) == 0) {
            int start = contentStart(from);
            UNSAFE.copyMemory(from, to, SLOTS + (long) SLOT_SIZE * count(from));
            UNSAFE.copyMemory(from + start, to + start, pageSize - start);
            UNSAFE.putInt(to + PageHeader.CHECKSUM, 0);
            UNSAFE.putByte(to + PageHeader.FLAGS, (byte) 0);
            UNSAFE.putLong(to + PageHeader.REVISION, revision);
            UNSAFE.putLong(to + PageHeader.PAGE_NO, pageNo);
            return;
        }
        boolean leaf = isLeaf(from);
        init(to, leaf, level(from), pageNo, revision, pageSize);
        UNSAFE.copyMemory(from + PREFIX_LENGTH, to + PREFIX_LENGTH, 1);
        UNSAFE.copyMemory(from + PREFIX, to + PREFIX, MAX_PREFIX);
        int n = count(from);
        int start = pageSize;
        for (int i = 0; i < n; i++) {
            int off = entry(from, i);
            int size = entrySize(from, off, leaf);
            start -= size;
            UNSAFE.copyMemory(from + off, to + start, size);
            setSlot(to, i, start, hint(from, i));
        }
        setCount(to, n);
        UNSAFE.putInt(to + CONTENT_START, start);
    }

    // ---- encoding entries into a buffer (scratch memory)

    /** Writes a leaf entry with an inline value at {@code dst}; returns its size. */
    public static int encodeLeaf(long dst, Object keyBase, long keyOff, int keyLen, Object valueBase, long valueOff,
            int valueLen) {
        UNSAFE.putShort(dst, (short) keyLen);
        UNSAFE.putShort(dst + 2, (short) valueLen);
        UNSAFE.copyMemory(keyBase, keyOff, null, dst + LEAF_ENTRY_HEADER, keyLen);
        UNSAFE.copyMemory(valueBase, valueOff, null, dst + LEAF_ENTRY_HEADER + keyLen, valueLen);
        return LEAF_ENTRY_HEADER + keyLen + valueLen;
    }

    /** Writes a leaf entry whose value lives in overflow pages; returns its size. */
    public static int encodeLeafOverflow(long dst, Object keyBase, long keyOff, int keyLen, long firstPage,
            long revision, int valueLen) {
        UNSAFE.putShort(dst, (short) keyLen);
        UNSAFE.putShort(dst + 2, (short) OVERFLOW_MARK);
        UNSAFE.copyMemory(keyBase, keyOff, null, dst + LEAF_ENTRY_HEADER, keyLen);
        long ref = dst + LEAF_ENTRY_HEADER + keyLen;
        UNSAFE.putLong(ref, firstPage);
        UNSAFE.putLong(ref + 8, revision);
        UNSAFE.putInt(ref + 16, valueLen);
        return LEAF_ENTRY_HEADER + keyLen + OVERFLOW_REF;
    }

    /** Writes a branch entry at {@code dst}; returns its size. */
    public static int encodeBranch(long dst, Object keyBase, long keyOff, int keyLen, long child, long revision,
            long count, boolean inlineOnly) {
        UNSAFE.putShort(dst, (short) keyLen);
        UNSAFE.putShort(dst + BRANCH_FLAGS, (short) (inlineOnly ? INLINE_ONLY : 0));
        UNSAFE.putLong(dst + BRANCH_CHILD, child);
        UNSAFE.putLong(dst + BRANCH_CHILD_REV, revision);
        UNSAFE.putLong(dst + BRANCH_COUNT, count);
        UNSAFE.copyMemory(keyBase, keyOff, null, dst + BRANCH_ENTRY_HEADER, keyLen);
        return BRANCH_ENTRY_HEADER + keyLen;
    }
}
