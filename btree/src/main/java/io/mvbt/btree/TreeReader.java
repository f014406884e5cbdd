// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import io.mvbt.CorruptionException;

/** Point lookups; nothing is allocated and nothing changes. */
public final class TreeReader {
    private TreeReader() {
    }

    /**
     * Address of the leaf entry holding {@code key}, or 0 if the tree has no such key. The entry
     * stays readable while the revision it belongs to is held.
     */
    public static long findEntry(PageReader r, long rootPage, long rootRevision, int depth, Object keyBase,
            long keyOff, int keyLen) {
        if (depth == 0) {
            return 0;
        }
        if (depth > TreeLimits.MAX_DEPTH) {
            throw new CorruptionException(rootPage, "tree depth " + depth + " exceeds " + TreeLimits.MAX_DEPTH);
        }
        long pageNo = rootPage;
        long revision = rootRevision;
        for (int level = depth - 1; level > 0; level--) {
            long branch = r.page(pageNo, revision, PageHeader.TYPE_BRANCH);
            if (Node.level(branch) != level) {
                TreeEditor.checkLevel(branch, pageNo, level);
            }
            int i = Node.searchBranch(branch, keyBase, keyOff, keyLen);
            pageNo = Node.child(branch, i);
            revision = Node.childRevision(branch, i);
        }
        long leaf = r.page(pageNo, revision, PageHeader.TYPE_LEAF);
        int pos = Node.searchLeaf(leaf, keyBase, keyOff, keyLen);
        return pos < 0 ? 0 : leaf + Node.entry(leaf, pos);
    }

    /**
     * Number of keys smaller than {@code key} (or smaller or equal, if {@code inclusive}), from the
     * entry counts in branch pages: one leaf, but on each level the count of every child left of the
     * path, so O(depth x fanout) reads.
     */
    public static long rank(PageReader r, TreeRoot root, Object keyBase, long keyOff, int keyLen, boolean inclusive) {
        if (root.depth == 0) {
            return 0;
        }
        if (root.depth > TreeLimits.MAX_DEPTH) {
            throw new CorruptionException(root.page, "tree depth " + root.depth + " exceeds " + TreeLimits.MAX_DEPTH);
        }
        long pageNo = root.page;
        long revision = root.revision;
        long below = 0;
        for (int level = root.depth - 1; level > 0; level--) {
            long branch = r.page(pageNo, revision, PageHeader.TYPE_BRANCH);
            if (Node.level(branch) != level) {
                TreeEditor.checkLevel(branch, pageNo, level);
            }
            int i = Node.searchBranch(branch, keyBase, keyOff, keyLen);
            for (int j = 0; j < i; j++) {
                below += Node.childCount(branch, j);
            }
            pageNo = Node.child(branch, i);
            revision = Node.childRevision(branch, i);
        }
        long leaf = r.page(pageNo, revision, PageHeader.TYPE_LEAF);
        int pos = Node.searchLeaf(leaf, keyBase, keyOff, keyLen);
        return below + (pos >= 0 ? pos + (inclusive ? 1 : 0) : -pos - 1);
    }

    /** Length of the key of a leaf entry. */
    public static int keyLength(long entry) {
        return org.agrona.UnsafeAccess.UNSAFE.getShort(entry) & 0xFFFF;
    }

    /** Whether the value of a leaf entry lives in overflow pages. */
    public static boolean isOverflow(long entry) {
        return (org.agrona.UnsafeAccess.UNSAFE.getShort(entry + 2) & 0xFFFF) == Node.OVERFLOW_MARK;
    }

    /** Address of the inline value, or of the overflow reference, of a leaf entry. */
    public static long valueAddress(long entry) {
        return entry + Node.LEAF_ENTRY_HEADER + keyLength(entry);
    }

    /** Length of the value of a leaf entry. */
    public static int valueLength(long entry) {
        int info = org.agrona.UnsafeAccess.UNSAFE.getShort(entry + 2) & 0xFFFF;
        return info != Node.OVERFLOW_MARK ? info : org.agrona.UnsafeAccess.UNSAFE.getInt(valueAddress(entry) + 16);
    }
}
