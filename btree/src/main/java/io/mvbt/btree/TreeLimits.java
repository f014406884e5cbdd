// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

/** Sizes that follow from the page size. */
public final class TreeLimits {
    /**
     * Deepest tree accepted. Descending recurses or loops once per level; a damaged file whose
     * branch pages form a cycle would otherwise never end. No real tree comes near: with three
     * entries per page at the very least, 64 levels hold more entries than a file can.
     */
    public static final int MAX_DEPTH = 64;

    /** Page size. */
    public final int pageSize;
    /** Bytes of a node page available to entries and their slots. */
    public final int usable;
    /** Longest key: a quarter of a page. */
    public final int maxKeySize;
    /** Largest leaf entry (header, key and value) kept inline; larger values go to overflow pages. */
    public final int maxInlineEntry;
    /** A non-root node with fewer used bytes than this is merged with or balanced against a sibling. */
    public final int minFill;

    public TreeLimits(int pageSize) {
        this.pageSize = pageSize;
        this.usable = pageSize - Node.SLOTS;
        this.maxKeySize = pageSize / 4;
        // Three entries of this size (with slots) fit a page, so any split finds room on both sides.
        this.maxInlineEntry = usable / 3 - Node.SLOT_SIZE;
        this.minFill = usable / 4;
    }

    /** Whether a leaf entry with this key and value length keeps its value inline. */
    public boolean inline(int keyLength, long valueLength) {
        return Node.LEAF_ENTRY_HEADER + keyLength + valueLength <= maxInlineEntry;
    }
}
