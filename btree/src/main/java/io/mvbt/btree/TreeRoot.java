// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.agrona.UnsafeAccess.UNSAFE;

/**
 * Where a tree starts and what it holds: root page and the revision that wrote it, entries and
 * depth (0 for an empty tree, 1 for a single leaf). Stored as {@link #BYTES} bytes in the catalog
 * and the meta page. Mutable while a write transaction edits the tree; a published copy is never
 * changed. Page counts are not kept: a range deletion cuts off whole subtrees without visiting
 * them, so only a walk knows them.
 */
public final class TreeRoot {
    /** Serialized size. */
    public static final int BYTES = 32;

    public long page;
    public long revision;
    public long entries;
    public int depth;

    public boolean isEmpty() {
        return depth == 0;
    }

    public TreeRoot copy() {
        TreeRoot c = new TreeRoot();
        c.copyFrom(this);
        return c;
    }

    public void copyFrom(TreeRoot o) {
        page = o.page;
        revision = o.revision;
        entries = o.entries;
        depth = o.depth;
    }

    public void clear() {
        page = 0;
        revision = 0;
        entries = 0;
        depth = 0;
    }

    /** Writes the {@link #BYTES} bytes at a memory address (or into an object at an offset). */
    public void writeTo(Object base, long offset) {
        UNSAFE.putLong(base, offset, page);
        UNSAFE.putLong(base, offset + 8, revision);
        UNSAFE.putLong(base, offset + 16, entries);
        UNSAFE.putInt(base, offset + 24, depth);
        UNSAFE.putInt(base, offset + 28, 0);
    }

    public TreeRoot readFrom(Object base, long offset) {
        page = UNSAFE.getLong(base, offset);
        revision = UNSAFE.getLong(base, offset + 8);
        entries = UNSAFE.getLong(base, offset + 16);
        depth = UNSAFE.getInt(base, offset + 24);
        return this;
    }

    @Override
    public String toString() {
        return "TreeRoot[page=" + page + ", revision=" + revision + ", entries=" + entries + ", depth=" + depth + "]";
    }
}
