// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.CorruptionException;

/**
 * Checks the invariants of a tree that span pages, for the pages written after a given revision:
 *
 * <ul>
 * <li>every page is well formed ({@link PageValidator}) and at the level its parent expects;
 * <li>no node of a non-empty tree is empty, and a branch's first entry carries no key;
 * <li>every key of a subtree lies in the range its parent's separators give it: at or above the
 *     separator of its entry, below the next one;
 * <li>the count of a branch entry equals the entries below it, and the root's count the total;
 * <li>a branch entry marked inline-only has no overflow value below it;
 * <li>no child is newer than its parent, and every overflow chain holds the bytes its entry says.
 * </ul>
 *
 * Copy-on-write makes the check of one commit cheap: a page that the commit did not write is the
 * root of a subtree an earlier check accepted, so only its own page is read (to check its keys
 * against the new parent and its count), never what lies below it. With {@code since = -1} the
 * whole tree is checked. Each page written after {@code since} is reported to a {@link Pages}, so
 * that the caller can check it is reached once and is not free.
 */
public final class TreeChecker {
    /** Receives the pages (or runs) a check reached that were written after its revision. */
    public interface Pages {
        /** A page, or an overflow run of {@code pages} pages, at memory address {@code addr}. */
        void reached(long pageNo, int pages, long revision, long addr);
    }

    private final PageReader r;
    private final TreeLimits limits;
    private final long since;
    private final Pages pages;
    /** Whether the subtree {@link #subtree} last checked holds an overflow value. */
    private boolean overflowBelow;

    private TreeChecker(PageReader r, TreeLimits limits, long since, Pages pages) {
        this.r = r;
        this.limits = limits;
        this.since = since;
        this.pages = pages;
    }

    /**
     * Checks the pages of the tree at {@code root} written after revision {@code since} (-1: every
     * page) and throws {@link CorruptionException} naming the first page found wrong.
     */
    public static void check(PageReader r, TreeLimits limits, TreeRoot root, long since, Pages pages) {
        if (root.isEmpty()) {
            if (root.entries != 0 || root.page != 0) {
                throw new CorruptionException(root.page, "an empty tree's root says " + root);
            }
            return;
        }
        if (root.depth > TreeLimits.MAX_DEPTH || root.depth < 0) {
            throw new CorruptionException(root.page, "tree depth " + root.depth);
        }
        if (root.revision <= since) {
            return;
        }
        long entries = detached(r, limits, root.page, root.revision, root.depth - 1, false, since, pages);
        if (entries != root.entries) {
            throw new CorruptionException(root.page, "the tree holds " + entries + " entries, its root says "
                    + root.entries);
        }
    }

    /**
     * As {@link #check}, for a subtree without a root record (a detached one, at {@code level}):
     * returns the entries it holds; {@code inlineOnly} says it was listed as holding no overflow
     * value, which must be so.
     */
    public static long detached(PageReader r, TreeLimits limits, long pageNo, long revision, int level,
            boolean inlineOnly, long since, Pages pages) {
        TreeChecker checker = new TreeChecker(r, limits, since, pages);
        long entries = checker.subtree(pageNo, revision, level, 0, -1, 0, -1);
        if (inlineOnly && checker.overflowBelow) {
            throw new CorruptionException(pageNo, "is listed as holding no overflow value, but holds one");
        }
        return entries;
    }

    /**
     * Checks a subtree written after {@link #since} whose keys must lie in [low, high) (length -1:
     * unbounded); returns its entry count and sets {@link #overflowBelow}.
     */
    private long subtree(long pageNo, long revision, int level, long low, int lowLength, long high, int highLength) {
        boolean leaf = level == 0;
        long addr = r.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        // The writer's own pages are not validated when it reads them; this is where they are.
        PageValidator.checkHeader(addr, pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        PageValidator.checkNode(addr, pageNo, limits);
        TreeEditor.checkLevel(addr, pageNo, level);
        pages.reached(pageNo, 1, revision, addr);
        int n = Node.count(addr);
        if (n == 0) {
            throw new CorruptionException(pageNo, "an empty " + (leaf ? "leaf" : "branch") + " in a non-empty tree");
        }
        overflowBelow = false;
        if (leaf) {
            for (int i = 0; i < n; i++) {
                checkBounds(pageNo, addr, i, low, lowLength, high, highLength);
                if (Node.isOverflow(addr, i)) {
                    overflowBelow = true;
                    long ref = Node.valueAddress(addr, i);
                    chain(pageNo, UNSAFE.getLong(ref), UNSAFE.getLong(ref + 8), UNSAFE.getInt(ref + 16),
                            revision);
                }
            }
            return n;
        }
        long total = 0;
        boolean anyOverflow = false;
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                checkBounds(pageNo, addr, i, low, lowLength, high, highLength);
            }
            long childLow = i == 0 ? low : Node.keyAddress(addr, i);
            int childLowLength = i == 0 ? lowLength : Node.keyLength(addr, i);
            long childHigh = i + 1 < n ? Node.keyAddress(addr, i + 1) : high;
            int childHighLength = i + 1 < n ? Node.keyLength(addr, i + 1) : highLength;
            long childNo = Node.child(addr, i);
            long childRevision = Node.childRevision(addr, i);
            if (childRevision > revision) {
                throw new CorruptionException(pageNo, "child " + childNo + " claims revision " + childRevision
                        + ", newer than its parent's " + revision);
            }
            long count = childRevision > since
                    ? subtree(childNo, childRevision, level - 1, childLow, childLowLength, childHigh, childHighLength)
                    : unchanged(childNo, childRevision, level - 1, childLow, childLowLength, childHigh,
                            childHighLength);
            if (count != Node.childCount(addr, i)) {
                throw new CorruptionException(pageNo, "entry " + i + " says child " + childNo + " holds "
                        + Node.childCount(addr, i) + " entries, it holds " + count);
            }
            if (overflowBelow && Node.inlineOnly(addr, i)) {
                throw new CorruptionException(pageNo, "entry " + i + " says child " + childNo
                        + " holds no overflow value, but it holds one");
            }
            anyOverflow |= overflowBelow;
            total += count;
        }
        overflowBelow = anyOverflow;
        return total;
    }

    /**
     * A child written at or before {@link #since}: its subtree was checked then, so only its page is
     * read, for its keys against the range it now has, its entry count and whether it may hold an
     * overflow value (as its own entries say).
     */
    private long unchanged(long pageNo, long revision, int level, long low, int lowLength, long high,
            int highLength) {
        boolean leaf = level == 0;
        long addr = r.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        TreeEditor.checkLevel(addr, pageNo, level);
        int n = Node.count(addr);
        if (n == 0) {
            throw new CorruptionException(pageNo, "an empty " + (leaf ? "leaf" : "branch") + " in a non-empty tree");
        }
        int first = leaf ? 0 : 1;
        if (n > first) {
            checkBounds(pageNo, addr, first, low, lowLength, high, highLength);
            checkBounds(pageNo, addr, n - 1, low, lowLength, high, highLength);
        }
        overflowBelow = !Node.inlineOnly(addr);
        return Node.totalCount(addr);
    }

    /** Checks an overflow chain of {@code length} bytes, reporting its runs written after {@link #since}. */
    private void chain(long leafNo, long pageNo, long revision, int length, long leafRevision) {
        if (revision > leafRevision) {
            throw new CorruptionException(leafNo, "overflow value at page " + pageNo + " of revision " + revision
                    + " is newer than its leaf");
        }
        if (revision <= since) {
            return;
        }
        long bytes = 0;
        long runNo = pageNo;
        long rev = revision;
        while (runNo != 0) {
            long address = r.page(runNo, rev, PageHeader.TYPE_OVERFLOW);
            PageValidator.checkHeader(address, runNo, rev, PageHeader.TYPE_OVERFLOW);
            PageValidator.checkOverflow(address, runNo, limits.pageSize, Integer.MAX_VALUE);
            int run = PageValidator.overflowPages(address);
            pages.reached(runNo, run, rev, address);
            bytes += UNSAFE.getInt(address + Overflow.BYTES);
            if (bytes > length) {
                throw new CorruptionException(runNo, "overflow chain holds more than the " + length
                        + " bytes its entry in page " + leafNo + " says");
            }
            rev = UNSAFE.getLong(address + Overflow.NEXT_REVISION);
            runNo = UNSAFE.getLong(address + Overflow.NEXT);
        }
        if (bytes != length) {
            throw new CorruptionException(pageNo, "overflow chain holds " + bytes + " bytes, its entry in page "
                    + leafNo + " says " + length);
        }
    }

    private static void checkBounds(long pageNo, long addr, int i, long low, int lowLength, long high,
            int highLength) {
        long key = Node.keyAddress(addr, i);
        int length = Node.keyLength(addr, i);
        if (lowLength >= 0 && Keys.compare(null, key, length, null, low, lowLength) < 0) {
            throw new CorruptionException(pageNo, "entry " + i + " sorts below the separator its parent gives it");
        }
        if (highLength >= 0 && Keys.compare(null, key, length, null, high, highLength) >= 0) {
            throw new CorruptionException(pageNo, "entry " + i + " sorts at or above the next separator of its"
                    + " parent");
        }
    }
}
