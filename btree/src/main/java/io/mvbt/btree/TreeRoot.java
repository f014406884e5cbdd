package io.mvbt.btree;

import org.agrona.UnsafeApi;

/**
 * Where a tree starts and what it holds: root page and the revision that wrote it, entries, depth
 * (0 for an empty tree, 1 for a single leaf) and page counts. Stored as {@link #BYTES} bytes in the
 * catalog and the meta page. Mutable while a write transaction edits the tree; a published copy is
 * never changed.
 */
public final class TreeRoot {
    /** Serialized size. */
    public static final int BYTES = 56;

    public long page;
    public long revision;
    public long entries;
    public int depth;
    public long leafPages;
    public long branchPages;
    public long overflowPages;

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
        leafPages = o.leafPages;
        branchPages = o.branchPages;
        overflowPages = o.overflowPages;
    }

    public void clear() {
        page = 0;
        revision = 0;
        entries = 0;
        depth = 0;
        leafPages = 0;
        branchPages = 0;
        overflowPages = 0;
    }

    /** Writes the {@link #BYTES} bytes at a memory address (or into an object at an offset). */
    public void writeTo(Object base, long offset) {
        UnsafeApi.putLong(base, offset, page);
        UnsafeApi.putLong(base, offset + 8, revision);
        UnsafeApi.putLong(base, offset + 16, entries);
        UnsafeApi.putInt(base, offset + 24, depth);
        UnsafeApi.putInt(base, offset + 28, 0);
        UnsafeApi.putLong(base, offset + 32, leafPages);
        UnsafeApi.putLong(base, offset + 40, branchPages);
        UnsafeApi.putLong(base, offset + 48, overflowPages);
    }

    public TreeRoot readFrom(Object base, long offset) {
        page = UnsafeApi.getLong(base, offset);
        revision = UnsafeApi.getLong(base, offset + 8);
        entries = UnsafeApi.getLong(base, offset + 16);
        depth = UnsafeApi.getInt(base, offset + 24);
        leafPages = UnsafeApi.getLong(base, offset + 32);
        branchPages = UnsafeApi.getLong(base, offset + 40);
        overflowPages = UnsafeApi.getLong(base, offset + 48);
        return this;
    }

    @Override
    public String toString() {
        return "TreeRoot[page=" + page + ", revision=" + revision + ", entries=" + entries + ", depth=" + depth
                + ", leaves=" + leafPages + ", branches=" + branchPages + ", overflow=" + overflowPages + "]";
    }
}
