// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.agrona.UnsafeAccess.UNSAFE;

/**
 * What changed between two revisions of one tree, in key order, reading only pages the two do not
 * share. Copy-on-write makes a child pointer (page number and the revision that wrote the page) name
 * the same bytes in every revision that reaches it: a published page is never written again, and a
 * page number used again carries the newer revision in the pointer. So two equal pointers are equal
 * subtrees and are stepped over unread.
 *
 * <p>A merge of two {@link DiffCursor}s: each stands on a leaf entry or on a subtree not read yet.
 * Two subtrees with equal pointers are skipped together; two entries are compared; otherwise the
 * side whose item may hold the smaller keys (by the lower bound its parent gives) reads one page.
 * A page is read only where the trees differ or where a change in a neighbour's key range makes
 * the two sides' pages line up differently, so the pages read are O(changed pages · height), not
 * O(entries). Splits, merges and different heights need nothing special: bounds order the sides.
 *
 * <p>Not thread-safe; reusable. The readers must serve pages that stay in place for the whole diff
 * (a snapshot's pages do).
 */
public final class TreeDiff {
    /** Receives the differences, in key order. */
    public interface Changes {
        /**
         * A key that differs: its leaf entry in the older tree and in the newer one, 0 where the key is
         * absent (never both). Entries are read with {@link TreeReader}; an overflow value through
         * the reader of its side. Addresses are valid until the call returns.
         */
        void change(long keyAddress, int keyLength, long olderEntry, long newerEntry);
    }

    private final DiffCursor older = new DiffCursor();
    private final DiffCursor newer = new DiffCursor();
    private byte[] olderValue = new byte[0];
    private byte[] newerValue = new byte[0];
    private long subtreesSkipped;
    private long overflowCompared;

    /**
     * Reports every key whose presence or value differs between {@code olderRoot} (read through
     * {@code olderReader}) and {@code newerRoot}. Either root may be empty.
     */
    public void diff(PageReader olderReader, TreeRoot olderRoot, PageReader newerReader, TreeRoot newerRoot,
            Changes out) {
        DiffCursor a = older.reset(olderReader, olderRoot);
        DiffCursor b = newer.reset(newerReader, newerRoot);
        subtreesSkipped = 0;
        overflowCompared = 0;
        while (!a.done() || !b.done()) {
            if (a.done() || b.done()) {
                DiffCursor rest = a.done() ? b : a;
                if (rest.atEntry()) {
                    report(out, rest.entry(), rest == a);
                    rest.next();
                } else {
                    rest.descend();
                }
            } else if (a.atEntry() && b.atEntry()) {
                compareEntries(a, b, out);
            } else if (!a.atEntry() && !b.atEntry() && a.subtreePage() == b.subtreePage()
                    && a.subtreeRevision() == b.subtreeRevision()) {
                // The same page, so the same subtree: nothing under it changed.
                a.next();
                b.next();
                subtreesSkipped++;
            } else {
                step(a, b, out);
            }
        }
    }

    /** At least one side stands on a subtree the other does not share: read a page, or pass an entry. */
    private void step(DiffCursor a, DiffCursor b, TreeDiff.Changes out) {
        int c = compareBounds(a, b);
        if (a.atEntry()) {
            // An entry below every key of the other side's subtree (and of what follows it) is gone.
            if (c < 0) {
                report(out, a.entry(), true);
                a.next();
            } else {
                b.descend();
            }
        } else if (b.atEntry()) {
            if (c > 0) {
                report(out, b.entry(), false);
                b.next();
            } else {
                a.descend();
            }
        } else if (c < 0) {
            a.descend();
        } else if (c > 0) {
            b.descend();
        } else if (a.subtreeLevel() != b.subtreeLevel()) {
            // Equal bounds: bring the taller subtree down, so that equal pages can meet at one level.
            (a.subtreeLevel() > b.subtreeLevel() ? a : b).descend();
        } else {
            a.descend();
            b.descend();
        }
    }

    private void compareEntries(DiffCursor a, DiffCursor b, Changes out) {
        long ea = a.entry();
        long eb = b.entry();
        int c = Keys.compare(null, ea + Node.LEAF_ENTRY_HEADER, TreeReader.keyLength(ea), null,
                eb + Node.LEAF_ENTRY_HEADER, TreeReader.keyLength(eb));
        if (c < 0) {
            report(out, ea, true);
            a.next();
        } else if (c > 0) {
            report(out, eb, false);
            b.next();
        } else {
            if (!sameValue(a.reader(), ea, b.reader(), eb)) {
                out.change(ea + Node.LEAF_ENTRY_HEADER, TreeReader.keyLength(ea), ea, eb);
            }
            a.next();
            b.next();
        }
    }

    private static void report(Changes out, long entry, boolean older) {
        long key = entry + Node.LEAF_ENTRY_HEADER;
        int length = TreeReader.keyLength(entry);
        if (older) {
            out.change(key, length, entry, 0);
        } else {
            out.change(key, length, 0, entry);
        }
    }

    /** Compares the lower bounds of the two items; minus infinity is below every key. */
    private static int compareBounds(DiffCursor a, DiffCursor b) {
        int la = a.boundLength();
        int lb = b.boundLength();
        if (la < 0 || lb < 0) {
            return la < 0 ? (lb < 0 ? 0 : -1) : 1;
        }
        return Keys.compare(null, a.boundAddress(), la, null, b.boundAddress(), lb);
    }

    /**
     * Whether two values are equal: overflow values by their first page first (the same run is the
     * same value), bytes only when the runs differ and the lengths agree.
     */
    private boolean sameValue(PageReader ra, long ea, PageReader rb, long eb) {
        int length = TreeReader.valueLength(ea);
        if (length != TreeReader.valueLength(eb)) {
            return false;
        }
        boolean overflowA = TreeReader.isOverflow(ea);
        boolean overflowB = TreeReader.isOverflow(eb);
        long va = TreeReader.valueAddress(ea);
        long vb = TreeReader.valueAddress(eb);
        if (!overflowA && !overflowB) {
            return Keys.compare(null, va, length, null, vb, length) == 0;
        }
        if (overflowA && overflowB && UNSAFE.getLong(va) == UNSAFE.getLong(vb)
                && UNSAFE.getLong(va + 8) == UNSAFE.getLong(vb + 8)) {
            return true;
        }
        overflowCompared++;
        if (olderValue.length < length) {
            olderValue = new byte[length];
            newerValue = new byte[length];
        }
        copyValue(ra, ea, olderValue);
        copyValue(rb, eb, newerValue);
        return java.util.Arrays.equals(olderValue, 0, length, newerValue, 0, length);
    }

    private static void copyValue(PageReader r, long entry, byte[] into) {
        int length = TreeReader.valueLength(entry);
        long at = TreeReader.valueAddress(entry);
        long base = UNSAFE.arrayBaseOffset(byte[].class);
        if (TreeReader.isOverflow(entry)) {
            Overflow.read(r, UNSAFE.getLong(at), UNSAFE.getLong(at + 8), length, into, base);
        } else {
            UNSAFE.copyMemory(null, at, into, base, length);
        }
    }

    /** Tree pages (leaves and branches) the last diff read, on both sides; overflow pages not included. */
    public long nodesRead() {
        return older.pagesRead() + newer.pagesRead();
    }

    /** Subtrees the last diff stepped over because both revisions share them. */
    public long subtreesSkipped() {
        return subtreesSkipped;
    }

    /** Values of the last diff whose bytes were compared because their overflow pages differ. */
    public long overflowValuesCompared() {
        return overflowCompared;
    }
}
