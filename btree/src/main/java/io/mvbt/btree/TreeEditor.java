// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import org.agrona.BufferUtil;
import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.CorruptionException;

/**
 * Copy-on-write edits of one tree at a time, for the single writer. An edit descends read-only,
 * recording the path; then it copies the pages on the path that an earlier revision wrote (each at
 * most once per transaction, since a copied page carries the transaction's revision) and changes
 * them in place. Splits, merges and redistribution keep entry counts of every subtree exact in the
 * branch entries above it, with no extra page writes.
 *
 * <p>Every edit leaves the tree with these invariants, which {@link TreeChecker} checks:
 * <ol>
 * <li>no node of a non-empty tree is empty (an emptied node leaves its parent at once);
 * <li>the first entry of a branch carries no key (it stands for everything below the second);
 * <li>the keys of a child lie in [its separator, the next separator) of its parent;
 * <li>a branch entry counts exactly the entries below it, and is marked inline-only only if no
 *     value below it is in overflow pages;
 * <li>a page this transaction did not write is not changed: it is copied first.
 * </ol>
 *
 * <p>Not thread-safe; one editor serves one writer. The scratch memory it owns is reused, so an
 * edit allocates nothing on the heap.
 */
public final class TreeEditor {
    private static final int MAX_DEPTH = TreeLimits.MAX_DEPTH;

    private final TreeLimits limits;
    private final int pageSize;
    /** Four pages of scratch memory: two page copies and two entry buffers. */
    private final java.nio.ByteBuffer scratchMemory;
    private final long scratchA;
    private final long scratchB;
    /** Two entry buffers, alternated by level, so an entry for the parent never overwrites one in use. */
    private final long[] entryBuffer = new long[2];

    private final long[] pathPage = new long[MAX_DEPTH];
    private final long[] pathAddress = new long[MAX_DEPTH];
    private final int[] pathIndex = new int[MAX_DEPTH];

    /** Entries of one or two pages laid out in order, for splitting and redistributing. */
    private final long[] listAddress;
    private final int[] listSize;

    private PageWriter w;
    private TreeRoot root;
    private int depth;
    /**
     * Subtrees detached by the running edit, four numbers each: page, revision, level, and 1 if
     * inline-only. They reach the sink only when the edit is complete, because the sink may itself
     * edit a tree with this editor.
     */
    private final org.agrona.collections.LongArrayList detachedNow = new org.agrona.collections.LongArrayList();
    /** Pages the running {@link #relocate} moved. */
    private long relocatedPages;

    public TreeEditor(TreeLimits limits) {
        this.limits = limits;
        this.pageSize = limits.pageSize;
        this.scratchMemory = BufferUtil.allocateDirectAligned(pageSize * 4, 64);
        long base = BufferUtil.address(scratchMemory);
        this.scratchA = base;
        this.scratchB = base + pageSize;
        this.entryBuffer[0] = base + 2L * pageSize;
        this.entryBuffer[1] = base + 3L * pageSize;
        int maxEntries = 2 * (limits.usable / (Node.LEAF_ENTRY_HEADER + Node.SLOT_SIZE)) + 2;
        this.listAddress = new long[maxEntries];
        this.listSize = new int[maxEntries];
    }

    public TreeLimits limits() {
        return limits;
    }

    // ------------------------------------------------------------------ put

    /**
     * Inserts or replaces {@code key}; returns true if the key is new.
     */
    public boolean put(PageWriter writer, TreeRoot tree, Object keyBase, long keyOff, int keyLen, Object valueBase,
            long valueOff, int valueLen) {
        begin(writer, tree);
        // The entry inserted at level L lives in entryBuffer[L & 1]; its parent's in the other one.
        long entry = entryBuffer[Math.max(depth - 1, 0) & 1];
        int entrySize = encodeNewEntry(entry, keyBase, keyOff, keyLen, valueBase, valueOff, valueLen);
        if (root.isEmpty()) {
            long pageNo = w.allocate(1);
            long addr = w.address(pageNo);
            Node.init(addr, true, 0, pageNo, w.revision(), pageSize);
            Node.insertRaw(addr, pageSize, 0, null, entry, entrySize, scratchA);
            root.page = pageNo;
            root.revision = w.revision();
            root.depth = 1;
            root.entries = 1;
            return true;
        }
        descend(keyBase, keyOff, keyLen);
        int leafLevel = depth - 1;
        int pos = Node.searchLeaf(pathAddress[leafLevel], keyBase, keyOff, keyLen);
        makePathWritable();
        long leaf = pathAddress[leafLevel];
        boolean inserted = pos < 0;
        int at;
        if (inserted) {
            at = -pos - 1;
            addToPathCounts(1);
            root.entries++;
        } else {
            at = pos;
            long old = leaf + Node.entry(leaf, at);
            if (!Node.isOverflow(leaf, at) && UNSAFE.getInt(old) == UNSAFE.getInt(entry)) {
                // The same key with an inline value of the same length: overwritten in place, so the
                // page gains no garbage and its next copy is one memory copy, not a compaction.
                UNSAFE.copyMemory(entry, old, entrySize);
                return false;
            }
            freeOverflowOf(leaf, at);
            Node.remove(leaf, at);
        }
        if (Node.entryIsOverflow(entry)) {
            // The leaf and every page above it now hold an overflow value; splits below recompute.
            for (int level = 0; level < leafLevel; level++) {
                Node.setInlineOnly(pathAddress[level], pathIndex[level], false);
            }
        }
        insertAt(leafLevel, at, entry, entrySize);
        return inserted;
    }

    /** Encodes the leaf entry for a new value, writing the value to overflow pages if needed. */
    private int encodeNewEntry(long dst, Object keyBase, long keyOff, int keyLen, Object valueBase, long valueOff,
            int valueLen) {
        if (limits.inline(keyLen, valueLen)) {
            return Node.encodeLeaf(dst, keyBase, keyOff, keyLen, valueBase, valueOff, valueLen);
        }
        long first = Overflow.write(w, valueBase, valueOff, valueLen);
        return Node.encodeLeafOverflow(dst, keyBase, keyOff, keyLen, first, w.revision(), valueLen);
    }

    // ------------------------------------------------------------------ delete

    /** Deletes {@code key}; returns true if it was there. */
    public boolean delete(PageWriter writer, TreeRoot tree, Object keyBase, long keyOff, int keyLen) {
        begin(writer, tree);
        if (root.isEmpty()) {
            return false;
        }
        descend(keyBase, keyOff, keyLen);
        int leafLevel = depth - 1;
        int pos = Node.searchLeaf(pathAddress[leafLevel], keyBase, keyOff, keyLen);
        if (pos < 0) {
            return false;
        }
        makePathWritable();
        long leaf = pathAddress[leafLevel];
        freeOverflowOf(leaf, pos);
        Node.remove(leaf, pos);
        addToPathCounts(-1);
        root.entries--;
        rebalance(leafLevel);
        return true;
    }

    /** Empties a tree in O(1): its whole page tree goes to {@code detached}, to be reclaimed later. */
    public void detachAll(TreeRoot tree, Detached detached) {
        if (!tree.isEmpty()) {
            detached.detach(tree.page, tree.revision, tree.depth - 1, false);
        }
        tree.clear();
    }

    /**
     * Frees one page of a detached subtree: a leaf with its overflow values, or a branch whose
     * children go back to {@code detached}. Returns the pages freed. A leaf known to hold no
     * overflow value ({@code inlineOnly}) is freed without being read.
     */
    public long reclaimStep(PageWriter writer, long pageNo, long revision, int level, boolean inlineOnly,
            Detached detached) {
        this.w = writer;
        if (level < 0 || level >= MAX_DEPTH) {
            throw new CorruptionException(pageNo, "detached subtree at level " + level);
        }
        boolean leaf = level == 0;
        if (leaf && inlineOnly) {
            w.free(pageNo, revision, 1);
            return 1;
        }
        long addr = w.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        checkLevel(addr, pageNo, level);
        int n = Node.count(addr);
        long freed = 1;
        detachedNow.clear();
        for (int i = 0; i < n; i++) {
            if (leaf) {
                if (Node.isOverflow(addr, i)) {
                    long ref = Node.valueAddress(addr, i);
                    Overflow.free(w, UNSAFE.getLong(ref), UNSAFE.getLong(ref + 8), UNSAFE.getInt(ref + 16));
                    freed++;
                }
            } else {
                detachLater(Node.child(addr, i), Node.childRevision(addr, i), level - 1, Node.inlineOnly(addr, i));
            }
        }
        w.free(pageNo, revision, 1);
        handOver(detached);
        return freed;
    }

    // ------------------------------------------------------------------ relocation

    /**
     * Moves every page of the tree numbered {@code limit} or higher and written after revision
     * {@code keepThrough}, and every such overflow value with a run there, into pages the writer
     * allocates (the lowest free ones, when a store compacts), copying the pages above them on the
     * way; returns the pages moved. A page written at or before {@code keepThrough} stays where it
     * is, and so does everything under it (a page is never newer than the page above it): an older
     * revision that is held still reaches it, so a copy would only add to the pages in use. Leaves
     * below the limit are not read unless they may hold overflow values.
     */
    public long relocate(PageWriter writer, TreeRoot tree, long limit, long keepThrough) {
        begin(writer, tree);
        if (tree.isEmpty() || tree.revision <= keepThrough) {
            return 0;
        }
        relocatedPages = 0;
        long moved = relocateNode(tree.page, tree.revision, tree.depth - 1, limit, keepThrough);
        if (moved >= 0) {
            tree.page = moved;
            tree.revision = w.revision();
        }
        return relocatedPages;
    }

    /** Receives the pages a {@link #relocate} may move or copy: a run of {@code pages} from {@code pageNo}. */
    public interface Movable {
        void page(long pageNo, long revision, int pages, boolean branch);
    }

    /**
     * Visits every page of the tree written after {@code keepThrough}: those a {@link #relocate} with
     * that bound may move, or copy on the way to one it moves. Older subtrees are passed over whole
     * without a read; a leaf is read only if it may hold overflow values.
     */
    public static void movablePages(PageReader r, TreeRoot tree, long keepThrough, Movable visitor) {
        if (tree.depth > MAX_DEPTH) {
            throw new CorruptionException(tree.page, "tree depth " + tree.depth + " exceeds " + MAX_DEPTH);
        }
        if (!tree.isEmpty()) {
            movablePages(r, tree.page, tree.revision, tree.depth - 1, true, keepThrough, visitor);
        }
    }

    private static void movablePages(PageReader r, long pageNo, long revision, int level, boolean mayOverflow,
            long keepThrough, Movable visitor) {
        if (revision <= keepThrough) {
            return;
        }
        visitor.page(pageNo, revision, 1, level > 0);
        if (level == 0 && !mayOverflow) {
            return;
        }
        long addr = r.page(pageNo, revision, level == 0 ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        checkLevel(addr, pageNo, level);
        for (int i = 0, n = Node.count(addr); i < n; i++) {
            if (level > 0) {
                movablePages(r, Node.child(addr, i), Node.childRevision(addr, i), level - 1,
                        level > 1 || !Node.inlineOnly(addr, i), keepThrough, visitor);
            } else if (Node.isOverflow(addr, i)) {
                long ref = Node.valueAddress(addr, i);
                Overflow.forEachRun(r, UNSAFE.getLong(ref), UNSAFE.getLong(ref + 8), UNSAFE.getInt(ref + 16),
                        keepThrough, visitor);
            }
        }
    }

    /** Relocates under the page; returns its new number if it was copied, else -1. */
    private long relocateNode(long pageNo, long revision, int level, long limit, long keepThrough) {
        boolean leaf = level == 0;
        long addr = w.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        checkLevel(addr, pageNo, level);
        long copyNo = -1;
        // A page of this transaction changes in place.
        long copy = revision == w.revision() ? addr : 0;
        if (copy == 0 && pageNo >= limit) {
            copyNo = copyOf(pageNo, revision, addr);
            copy = w.address(copyNo);
            relocatedPages++;
        }
        int n = Node.count(addr);
        for (int i = 0; i < n; i++) {
            long moved;
            if (leaf) {
                if (!Node.isOverflow(addr, i)) {
                    continue;
                }
                long ref = Node.valueAddress(addr, i);
                long runRevision = UNSAFE.getLong(ref + 8);
                int length = UNSAFE.getInt(ref + 16);
                // A value is written whole, so its first run's revision is every run's.
                moved = runRevision <= keepThrough ? -1 : Overflow.relocate(w, UNSAFE.getLong(ref), runRevision, length, limit);
                if (moved < 0) {
                    continue;
                }
                relocatedPages += Overflow.pagesFor(length, pageSize, w.maxRunPages());
            } else {
                long child = Node.child(addr, i);
                long childRevision = Node.childRevision(addr, i);
                if (childRevision <= keepThrough || level == 1 && child < limit && Node.inlineOnly(addr, i)) {
                    // A subtree a held older revision reaches, or a leaf that stays and holds no
                    // overflow value: nothing under it moves.
                    continue;
                }
                moved = relocateNode(child, childRevision, level - 1, limit, keepThrough);
                if (moved < 0) {
                    continue;
                }
            }
            if (copy == 0) {
                copyNo = copyOf(pageNo, revision, addr);
                copy = w.address(copyNo);
            }
            if (leaf) {
                long ref = Node.valueAddress(copy, i);
                UNSAFE.putLong(ref, moved);
                UNSAFE.putLong(ref + 8, w.revision());
            } else {
                Node.setChild(copy, i, moved, w.revision());
            }
        }
        return copyNo;
    }

    /** Copies a page an earlier revision wrote into a new page of this transaction, freeing it. */
    private long copyOf(long pageNo, long revision, long addr) {
        long copyNo = w.allocate(1);
        Node.copyCompacted(addr, w.address(copyNo), pageSize, copyNo, w.revision());
        w.free(pageNo, revision, 1);
        return copyNo;
    }

    // ------------------------------------------------------------------ sorted bulk load

    /**
     * Appends entries in ascending key order along the right edge of a tree, filling each leaf and
     * branch to a fill factor, bottom-up: no search and no split per entry. Works on an empty tree
     * and past the last key of a non-empty one. Only one loader at a time per editor; other trees
     * may be edited while it is open.
     *
     * <p>Keeps: {@code open[level]} is the last page of each level, written by this transaction;
     * the last entry of every open branch counts every entry appended under it so far; a new page
     * of a level starts with a keyless entry; a separator pushed up is the shortest prefix of the
     * new key that sorts above the last key before it, so it lies in (that key, new key].
     */
    public final class Loader {
        private final PageWriter writer;
        private final TreeRoot tree;
        private final long[] open = new long[MAX_DEPTH];
        private final int fillLimit;
        private byte[] lastKey = new byte[64];
        private int lastKeyLength = -1;
        private int levels;
        private long added;

        private Loader(PageWriter writer, TreeRoot tree, double fill) {
            this.writer = writer;
            this.tree = tree;
            begin(writer, tree);
            this.fillLimit = (int) Math.max(limits.usable * Math.min(1.0, fill), limits.maxInlineEntry + Node.SLOT_SIZE);
            if (root.isEmpty()) {
                return;
            }
            // Copy the right edge so that it can be filled in place, and remember the last key.
            long pageNo = root.page;
            long revision = root.revision;
            for (int level = 0; level < depth; level++) {
                boolean leaf = level == depth - 1;
                long addr = w.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
                checkLevel(addr, pageNo, depth - 1 - level);
                pathPage[level] = pageNo;
                pathAddress[level] = addr;
                pathIndex[level] = Node.count(addr) - 1;
                if (!leaf) {
                    pageNo = Node.child(addr, Node.count(addr) - 1);
                    revision = Node.childRevision(addr, Node.count(addr) - 1);
                }
            }
            makePathWritable();
            levels = depth;
            for (int level = 0; level < depth; level++) {
                long addr = pathAddress[level];
                // Pages this transaction already edited may hold garbage; appends need contiguous room.
                if (Node.garbage(addr) > 0) {
                    Node.compact(addr, pageSize, scratchA);
                }
                open[depth - 1 - level] = addr;
            }
            long leaf = open[0];
            rememberKey(Node.keyAddress(leaf, Node.count(leaf) - 1), Node.keyLength(leaf, Node.count(leaf) - 1));
        }

        /** Entries added so far. */
        public long added() {
            return added;
        }

        /** Adds an entry; its key must sort after every key added before and every key of the tree. */
        public void add(Object keyBase, long keyOff, int keyLen, Object valueBase, long valueOff, int valueLen) {
            // The editor may have edited other trees since the last call.
            w = writer;
            root = tree;
            if (lastKeyLength >= 0 && Keys.compare(lastKey, UNSAFE.arrayBaseOffset(byte[].class), lastKeyLength,
                    keyBase, keyOff, keyLen) >= 0) {
                throw new IllegalArgumentException("bulk load keys must be strictly ascending; entry " + added
                        + " does not sort after the previous key");
            }
            long entry = entryBuffer[0];
            int size = encodeNewEntry(entry, keyBase, keyOff, keyLen, valueBase, valueOff, valueLen);
            long leaf = levels == 0 ? 0 : open[0];
            if (leaf == 0) {
                leaf = newNode(0);
                open[0] = leaf;
                levels = 1;
                root.page = PageHeader.pageNo(leaf);
                root.revision = w.revision();
            } else if (Node.count(leaf) > 0 && Node.usedBytes(leaf, pageSize) + size + Node.SLOT_SIZE > fillLimit) {
                long previous = leaf;
                Node.refreshPrefix(previous);
                leaf = newNode(0);
                open[0] = leaf;
                // The separator: the shortest prefix of the new key above the last key of the full leaf.
                long lastAddress = Node.keyAddress(previous, Node.count(previous) - 1);
                int lastLength = Node.keyLength(previous, Node.count(previous) - 1);
                int prefix = Keys.commonPrefix(lastAddress, lastLength, entry + Node.LEAF_ENTRY_HEADER, keyLen) + 1;
                push(1, entry + Node.LEAF_ENTRY_HEADER, prefix, leaf, previous);
            }
            Node.appendRaw(leaf, pageSize, null, entry, size, scratchA);
            // Every open branch counts the new entry under its last child (and its overflow value).
            boolean overflow = Node.entryIsOverflow(entry);
            for (int level = 1; level < levels; level++) {
                long branch = open[level];
                int last = Node.count(branch) - 1;
                Node.setChildCount(branch, last, Node.childCount(branch, last) + 1);
                if (overflow) {
                    Node.setInlineOnly(branch, last, false);
                }
            }
            rememberKey(entry + Node.LEAF_ENTRY_HEADER, keyLen);
            added++;
            root.entries++;
        }

        /**
         * Adds the new, still empty page {@code child} as the last child of the open branch at
         * {@code level}, after the separator at {@code sepAddress}; {@code previous} is the full
         * page it follows.
         */
        private void push(int level, long sepAddress, int sepLength, long child, long previous) {
            long childNo = PageHeader.pageNo(child);
            if (level == levels) {
                // The tree grows a level: a new root over the old root (every entry so far) and the new page.
                long rootNode = newNode(level);
                Node.appendBranch(rootNode, null, 0, 0, root.page, root.revision, root.entries,
                        Node.inlineOnly(previous));
                Node.appendBranch(rootNode, null, sepAddress, sepLength, childNo, w.revision(), 0, true);
                open[level] = rootNode;
                levels = level + 1;
                root.page = PageHeader.pageNo(rootNode);
                root.revision = w.revision();
                return;
            }
            long branch = open[level];
            int entrySize = Node.BRANCH_ENTRY_HEADER + sepLength;
            if (Node.usedBytes(branch, pageSize) + entrySize + Node.SLOT_SIZE <= fillLimit || Node.count(branch) < 2) {
                Node.appendBranch(branch, null, sepAddress, sepLength, childNo, w.revision(), 0, true);
                return;
            }
            // The branch is full: a new branch starts with the child, and the separator moves up.
            Node.refreshPrefix(branch);
            long next = newNode(level);
            Node.appendBranch(next, null, 0, 0, childNo, w.revision(), 0, true);
            open[level] = next;
            push(level + 1, sepAddress, sepLength, next, branch);
        }

        private long newNode(int level) {
            long pageNo = w.allocate(1);
            long addr = w.address(pageNo);
            Node.init(addr, level == 0, level, pageNo, w.revision(), pageSize);
            return addr;
        }

        private void rememberKey(long address, int length) {
            if (lastKey.length < length) {
                lastKey = new byte[Math.max(length, lastKey.length * 2)];
            }
            UNSAFE.copyMemory(null, address, lastKey, UNSAFE.arrayBaseOffset(byte[].class), length);
            lastKeyLength = length;
        }

        /** Ends the load: the tree's root and depth take in what was added. */
        public void finish() {
            for (int level = 0; level < levels; level++) {
                Node.refreshPrefix(open[level]);
            }
            tree.depth = levels;
        }
    }

    /** Starts a sorted bulk load into {@code tree} with leaves and branches filled to {@code fill} (0 to 1]. */
    public Loader loader(PageWriter writer, TreeRoot tree, double fill) {
        if (!(fill > 0 && fill <= 1)) {
            throw new IllegalArgumentException("fill factor must be in (0, 1], not " + fill);
        }
        return new Loader(writer, tree, fill);
    }

    // ------------------------------------------------------------------ range deletion

    /**
     * Deletes the keys in [lo, hi) (lo must sort below hi) and returns how many. Only the two
     * boundary paths are copied and edited: subtrees wholly inside the range are cut off from their
     * parents and handed to {@code detached} without being read, so the work is proportional to
     * the depth and the boundary pages, not to the keys deleted. Boundary nodes left empty are
     * removed and underfull ones merged with a neighbour when they fit.
     */
    public long deleteRange(PageWriter writer, TreeRoot tree, Object loBase, long loOff, int loLen, Object hiBase,
            long hiOff, int hiLen, Detached detached) {
        begin(writer, tree);
        if (root.isEmpty()) {
            return 0;
        }
        long rootPage = w.page(root.page, root.revision, depth == 1 ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        checkLevel(rootPage, root.page, depth - 1);
        pathPage[0] = root.page;
        pathAddress[0] = rootPage;
        makeWritable(0);
        detachedNow.clear();
        long removed = deleteIn(0, loBase, loOff, loLen, hiBase, hiOff, hiLen);
        root.entries -= removed;
        shrinkRoot(pathAddress[0]);
        handOver(detached);
        return removed;
    }

    /** Passes the subtrees detached by the finished edit to {@code detached}. */
    private void handOver(Detached detached) {
        // Copied out first: the sink may edit with this editor and so reuse the list.
        long[] subtrees = detachedNow.toLongArray();
        detachedNow.clear();
        for (int i = 0; i < subtrees.length; i += 4) {
            detached.detach(subtrees[i], subtrees[i + 1], (int) subtrees[i + 2], subtrees[i + 3] != 0);
        }
    }

    private void detachLater(long pageNo, long revision, int level, boolean inlineOnly) {
        detachedNow.addLong(pageNo);
        detachedNow.addLong(revision);
        detachedNow.addLong(level);
        detachedNow.addLong(inlineOnly ? 1 : 0);
    }

    /** Copies the page on the path at {@code level} if an earlier revision wrote it. */
    private void makeWritable(int level) {
        long addr = pathAddress[level];
        long pageRevision = PageHeader.revision(addr);
        if (pageRevision == w.revision()) {
            return;
        }
        long copyNo = w.allocate(1);
        long copy = w.address(copyNo);
        Node.copyCompacted(addr, copy, pageSize, copyNo, w.revision());
        w.free(pathPage[level], pageRevision, 1);
        pathPage[level] = copyNo;
        pathAddress[level] = copy;
        pointParentAt(level, copyNo);
    }

    /**
     * Deletes [lo, hi) below the page on the path at {@code level} and returns how many went.
     * Children wholly inside the range are detached unread, the two edge children are cut
     * recursively and their counts reduced; then an edge left empty is removed and one left
     * underfull merged with a neighbour, so every node that stays holds an entry.
     */
    private long deleteIn(int level, Object loBase, long loOff, int loLen, Object hiBase, long hiOff, int hiLen) {
        long addr = pathAddress[level];
        if (Node.isLeaf(addr)) {
            int from = Node.lowerBound(addr, loBase, loOff, loLen);
            int to = Node.lowerBound(addr, hiBase, hiOff, hiLen);
            for (int i = from; i < to; i++) {
                freeOverflowOf(addr, i);
            }
            Node.removeRange(addr, pageSize, from, to);
            return Math.max(0, to - from);
        }
        int childLevel = Node.level(addr) - 1;
        int a = Node.searchBranch(addr, loBase, loOff, loLen);
        int b = Node.searchBranch(addr, hiBase, hiOff, hiLen);
        long removed = 0;
        for (int j = a + 1; j < b; j++) {
            removed += Node.childCount(addr, j);
            detachLater(Node.child(addr, j), Node.childRevision(addr, j), childLevel, Node.inlineOnly(addr, j));
        }
        // Child b holds keys below hi unless its separator is hi itself.
        boolean partialB = b > a && Keys.compare(null, Node.keyAddress(addr, b), Node.keyLength(addr, b), hiBase,
                hiOff, hiLen) < 0;
        if (partialB) {
            removed += deleteInChild(level, b, childLevel, loBase, loOff, loLen, hiBase, hiOff, hiLen);
        }
        removed += deleteInChild(level, a, childLevel, loBase, loOff, loLen, hiBase, hiOff, hiLen);
        if (b - 1 > a) {
            Node.removeRange(addr, pageSize, a + 1, b);
        }
        // Children a and a + 1 (the old b) are the edges of the cut: either may now be empty or
        // underfull. Empty ones go first, so that a merge never pours a neighbour into an empty
        // branch (its first entry would then carry the parent's separator as a key).
        int right = a + 1 < Node.count(addr) ? a + 1 : -1;
        if (right >= 0 && childIsEmpty(addr, right, childLevel)) {
            removeChild(addr, right);
            right = -1;
        }
        int left = a;
        if (childIsEmpty(addr, left, childLevel)) {
            removeChild(addr, left);
            left = -1;
            right = right >= 0 ? right - 1 : -1;
        }
        // Merging the right edge first keeps index a valid: it merges with a + 2 or into a.
        if (right >= 0) {
            mergeIfUnderfull(addr, right, childLevel);
        }
        if (left >= 0 && left < Node.count(addr)) {
            mergeIfUnderfull(addr, left, childLevel);
        }
        return removed;
    }

    private long deleteInChild(int level, int i, int childLevel, Object loBase, long loOff, int loLen, Object hiBase,
            long hiOff, int hiLen) {
        long addr = pathAddress[level];
        pathIndex[level] = i;
        pathAddress[level + 1] = writableChild(addr, i, childLevel);
        pathPage[level + 1] = Node.child(addr, i);
        long removed = deleteIn(level + 1, loBase, loOff, loLen, hiBase, hiOff, hiLen);
        Node.setChildCount(addr, i, Node.childCount(addr, i) - removed);
        return removed;
    }

    private boolean childIsEmpty(long parent, int i, int childLevel) {
        long child = w.page(Node.child(parent, i), Node.childRevision(parent, i),
                childLevel == 0 ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        return Node.count(child) == 0;
    }

    /**
     * After a range deletion: merges the non-empty child {@code i} with a neighbour if it is
     * underfull (or a branch with one child) and the two fit one page. Never splits, so the parent
     * cannot grow.
     */
    private void mergeIfUnderfull(long parent, int i, int childLevel) {
        boolean leaf = childLevel == 0;
        long child = w.page(Node.child(parent, i), Node.childRevision(parent, i),
                leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        boolean underfull = Node.usedBytes(child, pageSize) < limits.minFill || (!leaf && Node.count(child) == 1);
        if (!underfull || Node.count(parent) < 2) {
            return;
        }
        int leftIndex = i + 1 < Node.count(parent) ? i : i - 1;
        int rightIndex = leftIndex + 1;
        long left = writableChild(parent, leftIndex, childLevel);
        long right = writableChild(parent, rightIndex, childLevel);
        int merged = Node.usedBytes(left, pageSize) + Node.usedBytes(right, pageSize)
                + (leaf ? 0 : Node.keyLength(parent, rightIndex));
        if (merged <= limits.usable) {
            merge(parent, leftIndex, left, right, leaf);
        }
    }

    /** Frees the empty child {@code i} and takes it out of {@code parent}. */
    private void removeChild(long parent, int i) {
        w.free(Node.child(parent, i), Node.childRevision(parent, i), 1);
        Node.remove(parent, i);
        if (i == 0 && Node.count(parent) > 0) {
            // The new first child covers everything below the old one's range too.
            Node.clearFirstKey(parent);
        }
    }

    // ------------------------------------------------------------------ path

    private void begin(PageWriter writer, TreeRoot tree) {
        this.w = writer;
        this.root = tree;
        this.depth = tree.depth;
        if (depth > MAX_DEPTH) {
            throw new CorruptionException(tree.page, "tree depth " + depth + " exceeds " + MAX_DEPTH);
        }
    }

    private void descend(Object keyBase, long keyOff, int keyLen) {
        long pageNo = root.page;
        long revision = root.revision;
        for (int level = 0; level < depth; level++) {
            boolean leaf = level == depth - 1;
            long addr = w.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
            checkLevel(addr, pageNo, depth - 1 - level);
            pathPage[level] = pageNo;
            pathAddress[level] = addr;
            if (!leaf) {
                int i = Node.searchBranch(addr, keyBase, keyOff, keyLen);
                pathIndex[level] = i;
                pageNo = Node.child(addr, i);
                revision = Node.childRevision(addr, i);
            }
        }
    }

    static void checkLevel(long addr, long pageNo, int expected) {
        if (Node.level(addr) != expected) {
            throw new CorruptionException(pageNo, "node at level " + Node.level(addr) + " where level " + expected
                    + " belongs");
        }
    }

    /** Copies every page on the path that an earlier revision wrote, top down. */
    private void makePathWritable() {
        long revision = w.revision();
        for (int level = 0; level < depth; level++) {
            long addr = pathAddress[level];
            long pageRevision = PageHeader.revision(addr);
            if (pageRevision == revision) {
                continue;
            }
            long copyNo = w.allocate(1);
            long copy = w.address(copyNo);
            Node.copyCompacted(addr, copy, pageSize, copyNo, revision);
            w.free(pathPage[level], pageRevision, 1);
            pathPage[level] = copyNo;
            pathAddress[level] = copy;
            pointParentAt(level, copyNo);
        }
    }

    private void pointParentAt(int level, long pageNo) {
        if (level == 0) {
            root.page = pageNo;
            root.revision = w.revision();
        } else {
            Node.setChild(pathAddress[level - 1], pathIndex[level - 1], pageNo, w.revision());
        }
    }

    private void addToPathCounts(long delta) {
        for (int level = 0; level < depth - 1; level++) {
            long branch = pathAddress[level];
            int i = pathIndex[level];
            Node.setChildCount(branch, i, Node.childCount(branch, i) + delta);
        }
    }

    private void freeOverflowOf(long leaf, int i) {
        if (Node.isOverflow(leaf, i)) {
            long ref = Node.valueAddress(leaf, i);
            Overflow.free(w, UNSAFE.getLong(ref), UNSAFE.getLong(ref + 8), UNSAFE.getInt(ref + 16));
        }
    }

    /** Copies a sibling to a page of this transaction if needed and points the parent at it. */
    private long writableChild(long parent, int i, int level) {
        long childNo = Node.child(parent, i);
        long childRevision = Node.childRevision(parent, i);
        long child = w.page(childNo, childRevision, level == 0 ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        checkLevel(child, childNo, level);
        if (childRevision == w.revision()) {
            return child;
        }
        long copyNo = w.allocate(1);
        long copy = w.address(copyNo);
        Node.copyCompacted(child, copy, pageSize, copyNo, w.revision());
        w.free(childNo, childRevision, 1);
        Node.setChild(parent, i, copyNo, w.revision());
        return copy;
    }

    // ------------------------------------------------------------------ insertion and splits

    /** Inserts a raw entry into the node on the path at {@code level}, splitting upwards as needed. */
    private void insertAt(int level, int at, long entry, int size) {
        long addr = pathAddress[level];
        if (Node.freeBytes(addr, pageSize) >= size + Node.SLOT_SIZE) {
            Node.insertRaw(addr, pageSize, at, null, entry, size, scratchA);
            return;
        }
        splitInsert(level, at, entry, size);
    }

    private void splitInsert(int level, int at, long entry, int size) {
        long addr = pathAddress[level];
        boolean leaf = Node.isLeaf(addr);
        int n = Node.count(addr);
        boolean append = at == n && onRightEdge(level);
        if (leaf && !append && level > 0 && shareWithSibling(level, at, entry, size)) {
            return;
        }
        UNSAFE.copyMemory(addr, scratchA, pageSize);
        int total = listEntries(scratchA, 0, leaf, at, entry, size, 0);
        int split = append ? n : chooseSplit(total, leaf);
        rebuildPair(level, leaf, total, split, addr, 0);
    }

    /**
     * Instead of splitting a full leaf, moves entries into a neighbour with room (B*-tree style):
     * a split leaves two half-full pages, so random inserts would settle near 69% fill; sharing
     * first raises it to about 80% at the cost of rewriting the neighbour, which a split's new page
     * costs as well. Declines when the two pages together would be too full to gain much.
     */
    private boolean shareWithSibling(int level, int at, long entry, int size) {
        long parent = pathAddress[level - 1];
        int i = pathIndex[level - 1];
        long addr = pathAddress[level];
        int need = Node.usedBytes(addr, pageSize) + size + Node.SLOT_SIZE;
        int limit = 2 * limits.usable - limits.usable / 4;
        int sibling = -1;
        long other = 0;
        if (i + 1 < Node.count(parent) && need + Node.usedBytes(other = child(parent, i + 1), pageSize) <= limit) {
            sibling = i + 1;
        } else if (i > 0 && need + Node.usedBytes(other = child(parent, i - 1), pageSize) <= limit) {
            sibling = i - 1;
        }
        if (sibling < 0) {
            return false;
        }
        boolean pageIsLeft = sibling > i;
        UNSAFE.copyMemory(pageIsLeft ? addr : other, scratchA, pageSize);
        UNSAFE.copyMemory(pageIsLeft ? other : addr, scratchB, pageSize);
        int total = listEntries(scratchA, 0, true, pageIsLeft ? at : -1, entry, size, 0);
        total = listEntries(scratchB, 0, true, pageIsLeft ? -1 : at, entry, size, total);
        int split = bestSplit(total, true);
        if (split < 0) {
            // Large entries may not divide into two pages even below the limit.
            return false;
        }
        other = writableChild(parent, sibling, 0);
        long left = pageIsLeft ? addr : other;
        // Rebuild as a split of the left page whose right page is the existing neighbour.
        int leftIndex = Math.min(i, sibling);
        pathAddress[level] = left;
        pathPage[level] = PageHeader.pageNo(left);
        pathIndex[level - 1] = leftIndex;
        rebuildPair(level, true, total, split, left, Node.child(parent, leftIndex + 1));
        return true;
    }

    /** A leaf child of {@code parent}, as it is (not made writable). */
    private long child(long parent, int i) {
        long childNo = Node.child(parent, i);
        long child = w.page(childNo, Node.childRevision(parent, i), PageHeader.TYPE_LEAF);
        checkLevel(child, childNo, 0);
        return child;
    }

    /**
     * Appends the entries of the page at {@code addr} from {@code from} on to the list at {@code total}, with
     * {@code entry} before the one at {@code at} (-1: none); returns the new total.
     */
    private int listEntries(long addr, int from, boolean leaf, int at, long entry, int size, int total) {
        int n = Node.count(addr);
        for (int j = from; j <= n; j++) {
            if (j == at) {
                listAddress[total] = entry;
                listSize[total++] = size;
            }
            if (j < n) {
                int off = Node.entry(addr, j);
                listAddress[total] = addr + off;
                listSize[total++] = Node.entrySize(addr, off, leaf);
            }
        }
        return total;
    }

    /** Whether the path down to {@code level} follows the last child everywhere (a sequential load). */
    private boolean onRightEdge(int level) {
        for (int l = 0; l < level; l++) {
            if (pathIndex[l] != Node.count(pathAddress[l]) - 1) {
                return false;
            }
        }
        return true;
    }

    /**
     * Picks where a list of entries divides: leaves get [0, split) and [split, total); branches get
     * [0, split), entry split moves its key up, and its child heads the right page.
     */
    private int chooseSplit(int total, boolean leaf) {
        int split = bestSplit(total, leaf);
        if (split < 0) {
            throw new IllegalStateException("no split fits: entries too large for the page");
        }
        return split;
    }

    /** As {@link #chooseSplit}, or -1 if no division leaves both pages within the page size. */
    private int bestSplit(int total, boolean leaf) {
        long all = 0;
        for (int i = 0; i < total; i++) {
            all += listSize[i] + Node.SLOT_SIZE;
        }
        long left = 0;
        int best = -1;
        long bestWorst = Long.MAX_VALUE;
        for (int split = 1; split < total; split++) {
            left += listSize[split - 1] + Node.SLOT_SIZE;
            long right = leaf ? all - left
                    : all - left - (listSize[split] + Node.SLOT_SIZE) + (Node.BRANCH_ENTRY_HEADER + Node.SLOT_SIZE);
            if (left > limits.usable || right > limits.usable) {
                continue;
            }
            long worst = Math.max(left, right);
            if (worst < bestWorst) {
                bestWorst = worst;
                best = split;
            }
        }
        return best;
    }

    /**
     * Writes the listed entries into {@code leftPage} (the page on the path at {@code level}) and a
     * right page, which is new ({@code rightPageNo == 0}) or the existing right sibling; then fixes
     * the parent: counts, the separator, and for a new right page an entry for it.
     */
    private void rebuildPair(int level, boolean leaf, int total, int split, long leftPage, long rightPageNo) {
        long revision = w.revision();
        long rightNo = rightPageNo;
        if (rightNo == 0) {
            rightNo = w.allocate(1);
            Node.init(w.address(rightNo), leaf, Node.level(leftPage), rightNo, revision, pageSize);
        }
        long right = w.address(rightNo);
        // Both pages start empty, so appends never compact and the listed entries stay intact.
        Node.clear(leftPage, pageSize);
        Node.clear(right, pageSize);
        long leftCount = 0;
        boolean leftInline = true;
        for (int i = 0; i < split; i++) {
            Node.appendRaw(leftPage, pageSize, null, listAddress[i], listSize[i], 0);
            leftCount += leaf ? 1 : UNSAFE.getLong(listAddress[i] + Node.BRANCH_COUNT);
            leftInline &= inlineOnly(listAddress[i], leaf);
        }
        long rightCount = 0;
        boolean rightInline = true;
        long sepSource;
        int sepLength;
        int firstRight = split;
        if (leaf) {
            long lastLeft = listAddress[split - 1];
            long first = listAddress[split];
            sepSource = first + Node.LEAF_ENTRY_HEADER;
            // The shortest prefix of the right key that is still greater than the left key.
            sepLength = Keys.commonPrefix(lastLeft + Node.LEAF_ENTRY_HEADER, UNSAFE.getShort(lastLeft) & 0xFFFF,
                    sepSource, UNSAFE.getShort(first) & 0xFFFF) + 1;
        } else {
            long middle = listAddress[split];
            sepSource = middle + Node.BRANCH_ENTRY_HEADER;
            sepLength = UNSAFE.getShort(middle) & 0xFFFF;
            long headCount = UNSAFE.getLong(middle + Node.BRANCH_COUNT);
            boolean headInline = Node.entryInlineOnly(middle);
            Node.appendBranch(right, null, 0, 0, UNSAFE.getLong(middle + Node.BRANCH_CHILD),
                    UNSAFE.getLong(middle + Node.BRANCH_CHILD_REV), headCount, headInline);
            rightCount += headCount;
            rightInline = headInline;
            firstRight = split + 1;
        }
        for (int i = firstRight; i < total; i++) {
            Node.appendRaw(right, pageSize, null, listAddress[i], listSize[i], 0);
            rightCount += leaf ? 1 : UNSAFE.getLong(listAddress[i] + Node.BRANCH_COUNT);
            rightInline &= inlineOnly(listAddress[i], leaf);
        }
        Node.refreshPrefix(leftPage);
        Node.refreshPrefix(right);
        long up = entryBuffer[(level + 1) & 1];
        int upSize = Node.encodeBranch(up, null, sepSource, sepLength, rightNo, revision, rightCount, rightInline);
        if (level == 0) {
            growRoot(leftPage, leftCount, leftInline, up, upSize);
            return;
        }
        long parent = pathAddress[level - 1];
        int i = pathIndex[level - 1];
        Node.setChildCount(parent, i, leftCount);
        Node.setInlineOnly(parent, i, leftInline);
        if (rightPageNo != 0) {
            // An existing right sibling: its separator changed, so its entry is replaced.
            Node.remove(parent, i + 1);
        }
        insertAt(level - 1, i + 1, up, upSize);
    }

    /** Whether a listed raw entry keeps overflow pages out of the page it goes to. */
    private static boolean inlineOnly(long entry, boolean leaf) {
        return leaf ? !Node.entryIsOverflow(entry) : Node.entryInlineOnly(entry);
    }

    private void growRoot(long leftPage, long leftCount, boolean leftInline, long up, int upSize) {
        long rootNo = w.allocate(1);
        long newRoot = w.address(rootNo);
        Node.init(newRoot, false, Node.level(leftPage) + 1, rootNo, w.revision(), pageSize);
        Node.appendBranch(newRoot, null, 0, 0, PageHeader.pageNo(leftPage), w.revision(), leftCount, leftInline);
        Node.appendRaw(newRoot, pageSize, null, up, upSize, 0);
        Node.refreshPrefix(newRoot);
        root.page = rootNo;
        root.revision = w.revision();
        root.depth++;
        if (root.depth > MAX_DEPTH) {
            throw new IllegalStateException("tree deeper than " + MAX_DEPTH + " levels");
        }
    }

    // ------------------------------------------------------------------ rebalancing after delete

    private void rebalance(int level) {
        long addr = pathAddress[level];
        if (level == 0) {
            shrinkRoot(addr);
            return;
        }
        if (Node.usedBytes(addr, pageSize) >= limits.minFill) {
            return;
        }
        long parent = pathAddress[level - 1];
        int i = pathIndex[level - 1];
        if (Node.count(addr) == 0) {
            // Possible under a one-child branch (right-edge splits and bulk loads make them): with no
            // sibling to merge into, the empty page leaves its parent, which is then rebalanced.
            removeChild(parent, i);
            rebalance(level - 1);
            return;
        }
        int siblings = Node.count(parent);
        if (siblings < 2) {
            rebalance(level - 1);
            return;
        }
        boolean leaf = Node.isLeaf(addr);
        int leftIndex = i > 0 ? i - 1 : i;
        int rightIndex = leftIndex + 1;
        int childLevel = Node.level(addr);
        long left = leftIndex == i ? addr : writableChild(parent, leftIndex, childLevel);
        long right = rightIndex == i ? addr : writableChild(parent, rightIndex, childLevel);
        int sepLength = Node.keyLength(parent, rightIndex);
        int merged = Node.usedBytes(left, pageSize) + Node.usedBytes(right, pageSize) + (leaf ? 0 : sepLength);
        if (merged <= limits.usable) {
            merge(parent, leftIndex, left, right, leaf);
            rebalance(level - 1);
            return;
        }
        redistribute(level, parent, leftIndex, left, right, leaf);
    }

    /**
     * Moves every entry of {@code right} to the end of {@code left} and removes {@code right} from
     * the parent. Both hold entries: an empty node is removed instead, because a branch merged
     * into while empty would take the parent's separator as the key of its first entry.
     */
    private void merge(long parent, int leftIndex, long left, long right, boolean leaf) {
        assert Node.count(left) > 0 && Node.count(right) > 0 : "merge of an empty node";
        int rightIndex = leftIndex + 1;
        int n = Node.count(right);
        int start = 0;
        if (!leaf) {
            // The right page's first child gets the separator from the parent as its key.
            long head = entryBuffer[0];
            int headSize = Node.encodeBranch(head, null, Node.keyAddress(parent, rightIndex),
                    Node.keyLength(parent, rightIndex), Node.child(right, 0), Node.childRevision(right, 0),
                    Node.childCount(right, 0), Node.inlineOnly(right, 0));
            Node.appendRaw(left, pageSize, null, head, headSize, scratchA);
            start = 1;
        }
        for (int j = start; j < n; j++) {
            int off = Node.entry(right, j);
            Node.appendRaw(left, pageSize, null, right + off, Node.entrySize(right, off, leaf), scratchA);
        }
        Node.refreshPrefix(left);
        Node.setChildCount(parent, leftIndex, Node.childCount(parent, leftIndex) + Node.childCount(parent, rightIndex));
        Node.setInlineOnly(parent, leftIndex, Node.inlineOnly(parent, leftIndex) && Node.inlineOnly(parent, rightIndex));
        w.free(Node.child(parent, rightIndex), w.revision(), 1);
        Node.remove(parent, rightIndex);
    }

    private void redistribute(int level, long parent, int leftIndex, long left, long right, boolean leaf) {
        UNSAFE.copyMemory(left, scratchA, pageSize);
        UNSAFE.copyMemory(right, scratchB, pageSize);
        // Entries of both pages, with the parent's separator pulled down between them for branches.
        int total = listEntries(scratchA, 0, leaf, -1, 0, 0, 0);
        int start = 0;
        if (!leaf) {
            long head = entryBuffer[level & 1];
            int rightIndex = leftIndex + 1;
            listAddress[total] = head;
            listSize[total++] = Node.encodeBranch(head, null, Node.keyAddress(parent, rightIndex),
                    Node.keyLength(parent, rightIndex), Node.child(scratchB, 0), Node.childRevision(scratchB, 0),
                    Node.childCount(scratchB, 0), Node.inlineOnly(scratchB, 0));
            start = 1;
        }
        total = listEntries(scratchB, start, leaf, -1, 0, 0, total);
        int split = chooseSplit(total, leaf);
        // Rebuild as a split of the left page whose right page is the existing sibling.
        pathAddress[level] = left;
        pathIndex[level - 1] = leftIndex;
        rebuildPair(level, leaf, total, split, left, Node.child(parent, leftIndex + 1));
    }

    private void shrinkRoot(long addr) {
        int n = Node.count(addr);
        if (n == 0) {
            // An empty leaf, or a branch whose children were all removed: the tree is empty.
            w.free(root.page, root.revision, 1);
            root.clear();
            return;
        }
        if (Node.isLeaf(addr)) {
            return;
        }
        long pageNo = root.page;
        long revision = root.revision;
        while (n == 1) {
            long child = Node.child(addr, 0);
            long childRevision = Node.childRevision(addr, 0);
            w.free(pageNo, revision, 1);
            root.depth--;
            root.page = child;
            root.revision = childRevision;
            pageNo = child;
            revision = childRevision;
            if (root.depth == 1) {
                return;
            }
            addr = w.page(child, childRevision, PageHeader.TYPE_BRANCH);
            n = Node.count(addr);
        }
    }
}
