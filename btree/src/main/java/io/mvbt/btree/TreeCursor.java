// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import java.lang.ref.Reference;

import org.agrona.DirectBuffer;
import static org.agrona.UnsafeAccess.UNSAFE;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.CorruptionException;

/**
 * A position in one tree of one revision: the path from the root to a leaf entry. Moves both ways.
 * Key and value are views of page memory (a value spread over several overflow runs is copied
 * once into a buffer the cursor keeps). Views stay valid until the cursor moves.
 *
 * <p>The cursor trusts that its pages do not change under it: it serves a snapshot, or a write
 * transaction that re-positions it after each change.
 */
public final class TreeCursor {
    private static final int MAX_DEPTH = TreeLimits.MAX_DEPTH;
    /** Leaves a scan asks for together, on a store whose pages come from afar. */
    private static final int AHEAD = 16;

    private final long[] address = new long[MAX_DEPTH];
    private final int[] index = new int[MAX_DEPTH];
    private final UnsafeBuffer keyView = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer valueView = new UnsafeBuffer(0, 0);
    private byte[] valueCopy;

    private PageReader reader;
    private long rootPage;
    private long rootRevision;
    private int depth;
    private boolean positioned;
    private final long[] ahead = new long[AHEAD];
    /** Whether the reader's pages come from afar ({@link PageReader#prefetches}). */
    private boolean fetches;
    /** The parent whose leaves were last asked for, and the index the request reached. */
    private long aheadParent;
    private int aheadEnd;

    /** Points the cursor at a tree; it is not positioned afterwards. */
    public TreeCursor reset(PageReader reader, long rootPage, long rootRevision, int depth) {
        if (depth > MAX_DEPTH) {
            throw new CorruptionException(rootPage, "tree depth " + depth + " exceeds " + MAX_DEPTH);
        }
        this.reader = reader;
        this.rootPage = rootPage;
        this.rootRevision = rootRevision;
        this.depth = depth;
        this.positioned = false;
        this.fetches = reader.prefetches();
        this.aheadParent = 0;
        return this;
    }

    public TreeCursor reset(PageReader reader, TreeRoot root) {
        return reset(reader, root.page, root.revision, root.depth);
    }

    public boolean isPositioned() {
        return positioned;
    }

    /** Forgets the position. */
    public void unposition() {
        positioned = false;
    }

    public boolean first() {
        return edge(true);
    }

    public boolean last() {
        return edge(false);
    }

    private boolean edge(boolean first) {
        if (depth == 0) {
            return positioned = false;
        }
        descendEdge(0, rootPage, rootRevision, first);
        return positioned = Node.count(address[depth - 1]) > 0;
    }

    /** Positions at the first key {@code >= key}. */
    public boolean seek(DirectBuffer key, int off, int len) {
        try {
            return seek(key.byteArray(), key.addressOffset() + off, len);
        } finally {
            Reference.reachabilityFence(key);
        }
    }

    public boolean seek(Object keyBase, long keyOff, int keyLen) {
        if (!descendTo(keyBase, keyOff, keyLen)) {
            return false;
        }
        int leaf = depth - 1;
        int pos = Node.searchLeaf(address[leaf], keyBase, keyOff, keyLen);
        int i = pos >= 0 ? pos : -pos - 1;
        positioned = true;
        if (i < Node.count(address[leaf])) {
            index[leaf] = i;
            return true;
        }
        index[leaf] = i - 1;
        return next();
    }

    /** Positions at the last key {@code <= key}. */
    public boolean seekFloor(DirectBuffer key, int off, int len) {
        try {
            return seekFloor(key.byteArray(), key.addressOffset() + off, len);
        } finally {
            Reference.reachabilityFence(key);
        }
    }

    public boolean seekFloor(Object keyBase, long keyOff, int keyLen) {
        if (!descendTo(keyBase, keyOff, keyLen)) {
            return false;
        }
        int leaf = depth - 1;
        int pos = Node.searchLeaf(address[leaf], keyBase, keyOff, keyLen);
        int i = pos >= 0 ? pos : -pos - 2;
        positioned = true;
        if (i >= 0) {
            index[leaf] = i;
            return true;
        }
        index[leaf] = 0;
        return prev();
    }

    /**
     * Positions at the entry with index {@code position} (0-based, in key order) in O(depth), using
     * the entry counts of branch pages; false (and unpositioned) if out of range.
     */
    public boolean seekPosition(long position) {
        if (depth == 0 || position < 0) {
            return positioned = false;
        }
        long remaining = position;
        long pageNo = rootPage;
        long revision = rootRevision;
        for (int level = 0; level < depth; level++) {
            long addr = load(pageNo, revision, level);
            address[level] = addr;
            int n = Node.count(addr);
            if (level == depth - 1) {
                if (remaining >= n) {
                    return positioned = false;
                }
                index[level] = (int) remaining;
                return positioned = true;
            }
            int i = 0;
            while (i < n - 1 && remaining >= Node.childCount(addr, i)) {
                remaining -= Node.childCount(addr, i);
                i++;
            }
            index[level] = i;
            pageNo = Node.child(addr, i);
            revision = Node.childRevision(addr, i);
        }
        return positioned = false;
    }

    /** Index (0-based, in key order) of the current entry, in O(depth). */
    public long position() {
        if (!positioned) {
            throw new IllegalStateException("cursor is not positioned on an entry");
        }
        long position = index[depth - 1];
        for (int level = 0; level < depth - 1; level++) {
            long branch = address[level];
            for (int j = 0; j < index[level]; j++) {
                position += Node.childCount(branch, j);
            }
        }
        return position;
    }

    /** Positions exactly at {@code key}; false (and unpositioned) if absent. */
    public boolean find(Object keyBase, long keyOff, int keyLen) {
        if (!descendTo(keyBase, keyOff, keyLen)) {
            return false;
        }
        int leaf = depth - 1;
        int pos = Node.searchLeaf(address[leaf], keyBase, keyOff, keyLen);
        if (pos < 0) {
            return positioned = false;
        }
        index[leaf] = pos;
        return positioned = true;
    }

    public boolean next() {
        if (!positioned) {
            return false;
        }
        int level = depth - 1;
        if (++index[level] < Node.count(address[level])) {
            return true;
        }
        while (level > 0) {
            level--;
            if (++index[level] < Node.count(address[level])) {
                long branch = address[level];
                if (level == depth - 2) {
                    fetchAhead(branch, index[level], 1);
                }
                descendEdge(level + 1, Node.child(branch, index[level]), Node.childRevision(branch, index[level]),
                        true);
                return true;
            }
        }
        return positioned = false;
    }

    public boolean prev() {
        if (!positioned) {
            return false;
        }
        int level = depth - 1;
        if (--index[level] >= 0) {
            return true;
        }
        while (level > 0) {
            level--;
            if (--index[level] >= 0) {
                long branch = address[level];
                if (level == depth - 2) {
                    fetchAhead(branch, index[level], -1);
                }
                descendEdge(level + 1, Node.child(branch, index[level]), Node.childRevision(branch, index[level]),
                        false);
                return true;
            }
        }
        return positioned = false;
    }

    /**
     * A scan that steps into leaf {@code i} of {@code parent}, on a store whose pages come from
     * afar: asks for that leaf and the next ones in the direction of travel together, once per
     * {@link #AHEAD} leaves.
     */
    private void fetchAhead(long parent, int i, int step) {
        if (!fetches || parent == aheadParent && (step > 0 ? i < aheadEnd : i > aheadEnd)) {
            return;
        }
        int n = 0;
        int count = Node.count(parent);
        for (int j = i; n < AHEAD && j >= 0 && j < count; j += step) {
            ahead[n++] = Node.child(parent, j);
        }
        aheadParent = parent;
        aheadEnd = i + n * step;
        reader.prefetch(ahead, n);
    }

    private boolean descendTo(Object keyBase, long keyOff, int keyLen) {
        if (depth == 0) {
            return positioned = false;
        }
        long pageNo = rootPage;
        long revision = rootRevision;
        for (int level = 0; level < depth; level++) {
            long addr = load(pageNo, revision, level);
            address[level] = addr;
            if (level < depth - 1) {
                int i = Node.searchBranch(addr, keyBase, keyOff, keyLen);
                index[level] = i;
                pageNo = Node.child(addr, i);
                revision = Node.childRevision(addr, i);
            }
        }
        return true;
    }

    private void descendEdge(int fromLevel, long pageNo, long revision, boolean first) {
        long p = pageNo;
        long rev = revision;
        for (int level = fromLevel; level < depth; level++) {
            long addr = load(p, rev, level);
            address[level] = addr;
            int i = first ? 0 : Node.count(addr) - 1;
            index[level] = i;
            if (level < depth - 1) {
                p = Node.child(addr, i);
                rev = Node.childRevision(addr, i);
            }
        }
    }

    private long load(long pageNo, long revision, int level) {
        boolean leaf = level == depth - 1;
        long addr = reader.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        if (Node.level(addr) != depth - 1 - level) {
            TreeEditor.checkLevel(addr, pageNo, depth - 1 - level);
        }
        if (Node.count(addr) == 0) {
            // Only an empty tree has no entries, and it has no pages: slot 0 would be garbage.
            throw new CorruptionException(pageNo, "empty node in a non-empty tree");
        }
        return addr;
    }

    private void checkPositioned() {
        if (!positioned) {
            throw new IllegalStateException("cursor is not positioned on an entry");
        }
    }

    /** Address of the current leaf entry. */
    public long entryAddress() {
        checkPositioned();
        long leaf = address[depth - 1];
        return leaf + Node.entry(leaf, index[depth - 1]);
    }

    /** Address of the current key. */
    public long keyAddress() {
        return entryAddress() + Node.LEAF_ENTRY_HEADER;
    }

    public int keyLength() {
        return UNSAFE.getShort(entryAddress()) & 0xFFFF;
    }

    /** The current key, as a view of page memory. */
    public DirectBuffer key() {
        long entry = entryAddress();
        keyView.wrap(entry + Node.LEAF_ENTRY_HEADER, UNSAFE.getShort(entry) & 0xFFFF);
        return keyView;
    }

    /** The current value, as a view of page memory (or of a copy for values in several runs). */
    public DirectBuffer value() {
        long entry = entryAddress();
        int length = TreeReader.valueLength(entry);
        long at = TreeReader.valueAddress(entry);
        if (!TreeReader.isOverflow(entry)) {
            valueView.wrap(at, length);
            return valueView;
        }
        long pageNo = UNSAFE.getLong(at);
        long revision = UNSAFE.getLong(at + 8);
        long contiguous = Overflow.contiguousAddress(reader, pageNo, revision, length);
        if (contiguous != 0) {
            valueView.wrap(contiguous, length);
            return valueView;
        }
        if (valueCopy == null || valueCopy.length < length) {
            valueCopy = new byte[length];
        }
        Overflow.read(reader, pageNo, revision, length, valueCopy, UNSAFE.arrayBaseOffset(byte[].class));
        valueView.wrap(valueCopy, 0, length);
        return valueView;
    }

    public int valueLength() {
        return TreeReader.valueLength(entryAddress());
    }

    /** Depth of the tree the cursor walks. */
    public int depth() {
        return depth;
    }
}
