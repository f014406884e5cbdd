// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.CorruptionException;

/**
 * Checks a page read from storage before anything trusts it: the header says what the pointer to
 * it said (page number, revision, type), and every offset and length inside stays within the page,
 * keys are in order, and the entry bytes account for the whole content area. After this, the
 * unchecked accessors of {@link Node} cannot leave the page.
 */
public final class PageValidator {
    private PageValidator() {
    }

    /** Checks the header of any data page. */
    public static void checkHeader(long addr, long pageNo, long revision, int type) {
        int actualType = PageHeader.type(addr);
        if (actualType != type) {
            throw new CorruptionException(pageNo, "is a " + PageHeader.typeName(actualType) + " page where a "
                    + PageHeader.typeName(type) + " page belongs");
        }
        if (PageHeader.pageNo(addr) != pageNo) {
            throw new CorruptionException(pageNo, "header names page " + PageHeader.pageNo(addr)
                    + " (a misplaced or stale page)");
        }
        if (PageHeader.revision(addr) != revision) {
            throw new CorruptionException(pageNo, "written at revision " + PageHeader.revision(addr)
                    + " but its parent expects revision " + revision + " (a stale or lost write)");
        }
    }

    /** Checks the structure of a leaf or branch page. */
    public static void checkNode(long addr, long pageNo, TreeLimits limits) {
        int pageSize = limits.pageSize;
        boolean leaf = Node.isLeaf(addr);
        int count = Node.count(addr);
        int contentStart = Node.contentStart(addr);
        int garbage = Node.garbage(addr);
        int level = Node.level(addr);
        int slotsEnd = Node.SLOTS + Node.SLOT_SIZE * count;
        int prefix = Node.prefixLength(addr);
        if (prefix > Node.MAX_PREFIX) {
            fail(pageNo, "key prefix of " + prefix + " bytes (at most " + Node.MAX_PREFIX + ")");
        }
        if (contentStart < slotsEnd || contentStart > pageSize) {
            fail(pageNo, "content starts at " + contentStart + ", outside [" + slotsEnd + ", " + pageSize + "]");
        }
        if (garbage > pageSize - contentStart) {
            fail(pageNo, "claims " + garbage + " garbage bytes in a content area of " + (pageSize - contentStart));
        }
        if (leaf ? level != 0 : level < 1 || level >= TreeLimits.MAX_DEPTH) {
            fail(pageNo, "a " + (leaf ? "leaf" : "branch") + " at level " + level);
        }
        if (!leaf && count == 0) {
            fail(pageNo, "a branch without children");
        }
        int header = leaf ? Node.LEAF_ENTRY_HEADER : Node.BRANCH_ENTRY_HEADER;
        long content = 0;
        long previousKey = 0;
        int previousLength = -1;
        for (int i = 0; i < count; i++) {
            int off = Node.entry(addr, i);
            if (off < contentStart || off + header > pageSize) {
                fail(pageNo, "entry " + i + " at offset " + off + " lies outside the content area");
            }
            int keyLength = UNSAFE.getShort(addr + off) & 0xFFFF;
            if (keyLength > limits.maxKeySize) {
                fail(pageNo, "entry " + i + " has a key of " + keyLength + " bytes, over the limit "
                        + limits.maxKeySize);
            }
            int size = Node.entrySize(addr, off, leaf);
            if (off + size > pageSize) {
                fail(pageNo, "entry " + i + " (" + size + " bytes at " + off + ") runs past the page end");
            }
            if (leaf && Node.isOverflow(addr, i)) {
                int length = UNSAFE.getInt(addr + off + header + keyLength + 16);
                if (length < 0) {
                    fail(pageNo, "entry " + i + " has a negative overflow length");
                }
            }
            if (!leaf && i == 0 && keyLength != 0) {
                fail(pageNo, "first child of a branch carries a key");
            }
            if (!leaf && (UNSAFE.getShort(addr + off + Node.BRANCH_FLAGS) & ~Node.INLINE_ONLY) != 0) {
                fail(pageNo, "entry " + i + " has unknown flags");
            }
            long key = addr + off + header;
            if ((leaf || i > 0) && (Keys.commonPrefix(key, keyLength, addr + Node.PREFIX, prefix) < prefix
                    || Node.hint(addr, i) != Node.hintOf(null, key, keyLength, prefix))) {
                fail(pageNo, "entry " + i + " disagrees with the page's key prefix or its slot hint");
            }
            if (previousLength >= 0 && (leaf || i > 1)
                    && Keys.compare(null, previousKey, previousLength, null, key, keyLength) >= 0) {
                fail(pageNo, "keys out of order at entry " + i);
            }
            previousKey = key;
            previousLength = keyLength;
            content += size;
        }
        if (content + garbage != pageSize - contentStart) {
            fail(pageNo, "entries hold " + content + " bytes and garbage " + garbage + ", but the content area is "
                    + (pageSize - contentStart) + " bytes");
        }
    }

    /** Checks the header fields of the first page of an overflow run. */
    public static void checkOverflow(long addr, long pageNo, int pageSize, int maxRunPages) {
        int pages = UNSAFE.getInt(addr + Overflow.PAGES);
        int bytes = UNSAFE.getInt(addr + Overflow.BYTES);
        if (pages < 1 || pages > maxRunPages) {
            fail(pageNo, "overflow run of " + pages + " pages (at most " + maxRunPages + ")");
        }
        // Every run holds at least one byte, so walking a chain always makes progress.
        if (bytes < 1 || bytes > (long) pages * pageSize - Overflow.DATA) {
            fail(pageNo, "overflow run claims " + bytes + " bytes in " + pages + " pages");
        }
        long next = UNSAFE.getLong(addr + Overflow.NEXT);
        long nextRevision = UNSAFE.getLong(addr + Overflow.NEXT_REVISION);
        if (next < 0 || (next != 0 && nextRevision > PageHeader.revision(addr))) {
            fail(pageNo, "overflow run points at page " + next + " of revision " + nextRevision);
        }
    }

    /** Pages in the overflow run starting at {@code addr} (valid after {@link #checkOverflow}). */
    public static int overflowPages(long addr) {
        return UNSAFE.getInt(addr + Overflow.PAGES);
    }

    private static void fail(long pageNo, String message) {
        throw new CorruptionException(pageNo, message);
    }
}
