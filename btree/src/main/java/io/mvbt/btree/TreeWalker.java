// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.CorruptionException;

/**
 * Visits the pages of a tree written after a given revision. Copy-on-write makes this cheap: a page
 * is never newer than its parent, so a subtree whose root is old is skipped whole. Sealing at a
 * checkpoint and verifying at recovery visit only what recent commits wrote.
 */
public final class TreeWalker {
    /** What a walk reports. */
    public interface Visitor {
        /** A leaf or branch page, at its address; {@code level} 0 is a leaf. */
        void node(long pageNo, long revision, long address, int level);

        /** The first page of an overflow run, at its address. */
        void overflow(long pageNo, long revision, long address);
    }

    /** Which pages a walk passes over unread, with all they reach. */
    public interface Skip {
        /** Whether the page {@code pageNo} written at {@code revision} (a subtree, or an overflow run's rest) is skipped. */
        boolean skip(long pageNo, long revision);
    }

    private TreeWalker() {
    }

    /** Visits every page reachable from the root whose revision is above {@code sinceRevision}. */
    public static void walk(PageReader r, TreeRoot root, long sinceRevision, Visitor visitor) {
        walk(r, root, (pageNo, revision) -> revision <= sinceRevision, visitor);
    }

    /** Visits every page reachable from the root but what {@code skip} passes over. */
    public static void walk(PageReader r, TreeRoot root, Skip skip, Visitor visitor) {
        if (root.depth > TreeLimits.MAX_DEPTH) {
            throw new CorruptionException(root.page, "tree depth " + root.depth + " exceeds " + TreeLimits.MAX_DEPTH);
        }
        if (root.depth > 0) {
            walk(r, root.page, root.revision, root.depth - 1, skip, visitor);
        }
    }

    private static void walk(PageReader r, long pageNo, long revision, int level, Skip skip, Visitor visitor) {
        if (skip.skip(pageNo, revision)) {
            return;
        }
        boolean leaf = level == 0;
        long addr = r.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        TreeEditor.checkLevel(addr, pageNo, level);
        visitor.node(pageNo, revision, addr, level);
        int n = Node.count(addr);
        for (int i = 0; i < n; i++) {
            if (leaf) {
                if (Node.isOverflow(addr, i)) {
                    long ref = Node.valueAddress(addr, i);
                    walkOverflow(r, UNSAFE.getLong(ref), UNSAFE.getLong(ref + 8), skip, visitor);
                }
            } else {
                long childRevision = Node.childRevision(addr, i);
                if (childRevision > revision) {
                    throw new CorruptionException(pageNo, "child " + Node.child(addr, i) + " claims revision "
                            + childRevision + ", newer than its parent's " + revision);
                }
                walk(r, Node.child(addr, i), childRevision, level - 1, skip, visitor);
            }
        }
    }

    private static void walkOverflow(PageReader r, long pageNo, long revision, Skip skip, Visitor visitor) {
        long runNo = pageNo;
        long rev = revision;
        while (runNo != 0 && !skip.skip(runNo, rev)) {
            long address = r.page(runNo, rev, PageHeader.TYPE_OVERFLOW);
            visitor.overflow(runNo, rev, address);
            runNo = UNSAFE.getLong(address + Overflow.NEXT);
            rev = UNSAFE.getLong(address + Overflow.NEXT_REVISION);
        }
    }
}
