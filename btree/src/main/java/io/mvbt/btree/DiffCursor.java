// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

/**
 * One side of a {@link TreeDiff}: a position in one tree that descends only when asked. Its current
 * item is either a leaf entry or a whole subtree not read yet (a child pointer of a loaded branch,
 * or the root), so that a subtree the other side shares can be stepped over without reading it.
 *
 * <p>Each item carries a lower bound of its keys: a leaf entry's own key, a subtree's separator in
 * its parent, or, for a first child, the bound its parent had. The root's bound is minus infinity.
 */
final class DiffCursor {
    /** Levels 0 to depth - 1 hold loaded pages; level depth is a virtual page whose one child is the root. */
    private final long[] address = new long[TreeLimits.MAX_DEPTH + 1];
    private final int[] index = new int[TreeLimits.MAX_DEPTH + 1];
    private final int[] count = new int[TreeLimits.MAX_DEPTH + 1];
    /** Lower bound of the keys of the page loaded at each level: address and length, length -1 for none. */
    private final long[] boundAddress = new long[TreeLimits.MAX_DEPTH + 1];
    private final int[] boundLength = new int[TreeLimits.MAX_DEPTH + 1];

    private PageReader reader;
    private long rootPage;
    private long rootRevision;
    private int depth;
    /** The lowest loaded level: 0 when the item is a leaf entry, else the item is a child of that level's page. */
    private int low;
    private boolean done;
    private long pagesRead;

    DiffCursor reset(PageReader r, TreeRoot root) {
        if (root.depth > TreeLimits.MAX_DEPTH) {
            throw new io.mvbt.CorruptionException(root.page, "tree depth " + root.depth + " exceeds "
                    + TreeLimits.MAX_DEPTH);
        }
        reader = r;
        rootPage = root.page;
        rootRevision = root.revision;
        depth = root.depth;
        low = depth;
        index[depth] = 0;
        count[depth] = 1;
        boundLength[depth] = -1;
        done = depth == 0;
        pagesRead = 0;
        return this;
    }

    boolean done() {
        return done;
    }

    /** Whether the item is a leaf entry (else it is a subtree not read yet). */
    boolean atEntry() {
        return low == 0;
    }

    /** Address of the leaf entry that is the item. */
    long entry() {
        return address[0] + Node.entry(address[0], index[0]);
    }

    PageReader reader() {
        return reader;
    }

    /** Page of the subtree that is the item. */
    long subtreePage() {
        return low == depth ? rootPage : Node.child(address[low], index[low]);
    }

    /** Revision that wrote the root page of the subtree that is the item. */
    long subtreeRevision() {
        return low == depth ? rootRevision : Node.childRevision(address[low], index[low]);
    }

    /** Level of the root page of the subtree that is the item (0: a leaf). */
    int subtreeLevel() {
        return low - 1;
    }

    /** Lower bound of the item's keys: its key for an entry; -1 length for minus infinity. */
    long boundAddress() {
        if (low == depth) {
            return 0;
        }
        return index[low] > 0 || low == 0 ? Node.keyAddress(address[low], index[low]) : boundAddress[low];
    }

    int boundLength() {
        if (low == depth) {
            return -1;
        }
        return index[low] > 0 || low == 0 ? Node.keyLength(address[low], index[low]) : boundLength[low];
    }

    /** Reads the root page of the subtree that is the item; its first child or entry becomes the item. */
    void descend() {
        int level = low - 1;
        long pageNo = subtreePage();
        long revision = subtreeRevision();
        if (low < depth && revision > PageHeader.revision(address[low])) {
            throw new io.mvbt.CorruptionException(PageHeader.pageNo(address[low]), "child " + pageNo
                    + " claims revision " + revision + ", newer than its parent's " + PageHeader.revision(address[low]));
        }
        long bound = boundAddress();
        int boundLen = boundLength();
        long addr = reader.page(pageNo, revision, level == 0 ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        pagesRead++;
        TreeEditor.checkLevel(addr, pageNo, level);
        int n = Node.count(addr);
        if (n == 0) {
            throw new io.mvbt.CorruptionException(pageNo, "empty node in a tree");
        }
        address[level] = addr;
        index[level] = 0;
        count[level] = n;
        boundAddress[level] = bound;
        boundLength[level] = boundLen;
        low = level;
    }

    /** Moves past the item (a whole subtree, unread, if it is one). */
    void next() {
        index[low]++;
        while (index[low] == count[low]) {
            if (low == depth) {
                done = true;
                return;
            }
            low++;
            index[low]++;
        }
    }

    /** Tree pages this cursor read. */
    long pagesRead() {
        return pagesRead;
    }
}
