// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.agrona.collections.LongHashSet;

import io.mvbt.CorruptionException;
import io.mvbt.btree.PageHeader;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.PageWriter;

/**
 * The persisted in-use bitmap: one bit per page, in bitmap pages that hang off a small radix tree
 * of index pages. A commit rewrites (copy-on-write) only the bitmap pages whose bits changed, and
 * only when the changes no longer fit as a list of flips in the meta page; so most commits write no
 * free-space page at all.
 *
 * <pre>
 * bitmap page (FREE_BITS):  header, 24 u64 slice number, 32 bits (bit i = page slice*bitsPerPage + i in use)
 * index page (FREE_INDEX):  header, 24 u32 level (1: children are bitmap pages), 32 (u64 page, u64 revision) per child;
 *                           page 0 marks a child whose pages are all free
 * </pre>
 */
final class FreeMap {
    static final int SLICE = 24;
    static final int LEVEL = 24;
    static final int BODY = 32;

    private final int pageSize;
    final long bitsPerPage;
    final int fanout;

    long root;
    long rootRevision;
    int height;
    /** Pages from here on move at the next flush ({@link #relocate}); -1 for none. */
    private long relocateFrom = -1;
    /** Pages written at or before this revision stay where they are at that flush. */
    private long relocateKeep = -1;

    FreeMap(int pageSize) {
        this.pageSize = pageSize;
        this.bitsPerPage = (long) (pageSize - BODY) * 8;
        this.fanout = (pageSize - BODY) / 16;
    }

    void set(long root, long rootRevision, int height) {
        this.root = root;
        this.rootRevision = rootRevision;
        this.height = height;
    }

    /** Marks in {@code space} every page the bitmap says is in use. */
    void load(PageReader r, FreeSpace space, long pageCount) {
        if (root != 0) {
            load(r, space, pageCount, root, rootRevision, height, 0);
        }
    }

    private void load(PageReader r, FreeSpace space, long pageCount, long pageNo, long revision, int level,
            long firstSlice) {
        if (level == 0) {
            long addr = r.page(pageNo, revision, PageHeader.TYPE_FREE_BITS);
            long slice = UNSAFE.getLong(addr + SLICE);
            if (slice != firstSlice) {
                throw new CorruptionException(pageNo, "free-space bitmap for slice " + slice + " where slice "
                        + firstSlice + " belongs");
            }
            long first = slice * bitsPerPage;
            long end = Math.min(first + bitsPerPage, pageCount);
            for (long p = first; p < end; p += 64) {
                long word = UNSAFE.getLong(addr + BODY + (p - first) / 8);
                while (word != 0) {
                    long bit = p + Long.numberOfTrailingZeros(word);
                    if (bit < end) {
                        space.loadInUse(bit);
                    }
                    word &= word - 1;
                }
            }
            return;
        }
        long addr = r.page(pageNo, revision, PageHeader.TYPE_FREE_INDEX);
        checkLevel(addr, pageNo, level);
        long span = span(level - 1);
        for (int i = 0; i < fanout; i++) {
            long child = UNSAFE.getLong(addr + BODY + 16L * i);
            if (child != 0) {
                load(r, space, pageCount, child, UNSAFE.getLong(addr + BODY + 16L * i + 8), level - 1,
                        firstSlice + i * span);
            }
        }
    }

    private static void checkLevel(long addr, long pageNo, int level) {
        if (UNSAFE.getInt(addr + LEVEL) != level) {
            throw new CorruptionException(pageNo, "free-space index at level " + UNSAFE.getInt(addr + LEVEL)
                    + " where level " + level + " belongs");
        }
    }

    /** Slices under one child of an index page at {@code level + 1}. */
    private long span(int level) {
        long span = 1;
        for (int i = 0; i < level; i++) {
            span *= fanout;
        }
        return span;
    }

    /**
     * Writes every bitmap page with a flip into new pages (copying index pages on the way) and
     * clears the flips. Its own allocations flip bits too; it repeats until they land in pages it
     * already rewrote, then writes the bits.
     */
    void flush(PageWriter w, FreeSpace space) {
        LongHashSet written = new LongHashSet();
        boolean more = false;
        if (relocateFrom >= 0 && reaches(w, relocateFrom, relocateKeep)) {
            // The map is small (a bitmap page per 128 MiB of 4 KiB pages): all of it moves, but the
            // pages an older held revision shares, which a copy would only double.
            walk(w, relocateKeep, (pageNo, revision, type, address) -> {
                if (type == PageHeader.TYPE_FREE_BITS) {
                    written.add(UNSAFE.getLong(address + SLICE));
                }
            });
            more = true;
        }
        relocateFrom = -1;
        while (true) {
            long cover = space.pageCount();
            int flips = space.flips.compact();
            for (int i = 0; i < flips; i++) {
                cover = Math.max(cover, space.flips.member(i) + 1);
            }
            growToCover(w, cover);
            for (int i = 0; i < flips; i++) {
                more |= written.add(space.flips.member(i) / bitsPerPage);
            }
            if (!more) {
                break;
            }
            for (LongHashSet.LongIterator it = written.iterator(); it.hasNext();) {
                makeWritable(w, it.nextValue());
            }
            more = false;
        }
        for (LongHashSet.LongIterator it = written.iterator(); it.hasNext();) {
            long slice = it.nextValue();
            writeBits(w, space, slice, bitsPageOf(w, slice));
        }
        space.flips.clear();
    }

    /** Pages a flush may allocate, at most: for reserving them before it starts. */
    long flushBound(FreeSpace space) {
        LongHashSet slices = new LongHashSet();
        int flips = space.flips.compact();
        for (int i = 0; i < flips; i++) {
            slices.add(space.flips.member(i) / bitsPerPage);
        }
        long relocated = relocateFrom >= 0 ? space.pageCount() / bitsPerPage + 1 : 0;
        return 2L * (slices.size() + relocated + 4) * (height + 3);
    }

    /**
     * Has the next flush move every page of the map numbered {@code limit} or higher (a store
     * compacting), by rewriting every bitmap page written after {@code keepThrough} if any page of
     * the map written after it lies there.
     */
    void relocate(long limit, long keepThrough) {
        relocateFrom = limit;
        relocateKeep = keepThrough;
    }

    /** Whether a flush is asked to move pages of the map ({@link #relocate}). */
    boolean relocating() {
        return relocateFrom >= 0;
    }

    /** Whether a page of the map written after {@code keepThrough} is numbered {@code limit} or higher. */
    private boolean reaches(PageReader r, long limit, long keepThrough) {
        boolean[] found = new boolean[1];
        walk(r, keepThrough, (pageNo, revision, type, address) -> found[0] |= pageNo >= limit);
        return found[0];
    }

    private void growToCover(PageWriter w, long pageCount) {
        while (bitsPerPage * span(height) < pageCount) {
            if (root == 0) {
                height++;
                continue;
            }
            long pageNo = w.allocate(1);
            long addr = w.address(pageNo);
            initIndex(addr, pageNo, w.revision(), height + 1);
            UNSAFE.putLong(addr + BODY, root);
            UNSAFE.putLong(addr + BODY + 8, rootRevision);
            root = pageNo;
            rootRevision = w.revision();
            height++;
        }
    }

    /** Makes the bitmap page of {@code slice} and the index pages above it pages of this transaction. */
    private void makeWritable(PageWriter w, long slice) {
        if (height == 0) {
            root = writableBits(w, root, rootRevision, slice);
            rootRevision = w.revision();
            return;
        }
        root = writableIndex(w, root, rootRevision, height);
        rootRevision = w.revision();
        long node = w.address(root);
        for (int level = height; level >= 1; level--) {
            int i = (int) ((slice / span(level - 1)) % fanout);
            long entry = node + BODY + 16L * i;
            long child = UNSAFE.getLong(entry);
            long childRevision = UNSAFE.getLong(entry + 8);
            long copy = level == 1 ? writableBits(w, child, childRevision, slice)
                    : writableIndex(w, child, childRevision, level - 1);
            UNSAFE.putLong(entry, copy);
            UNSAFE.putLong(entry + 8, w.revision());
            node = w.address(copy);
        }
    }

    private long writableBits(PageWriter w, long pageNo, long revision, long slice) {
        if (pageNo != 0 && revision == w.revision()) {
            return pageNo;
        }
        long copyNo = w.allocate(1);
        long copy = w.address(copyNo);
        PageHeader.init(copy, PageHeader.TYPE_FREE_BITS, copyNo, w.revision());
        UNSAFE.putLong(copy + SLICE, slice);
        if (pageNo != 0) {
            w.page(pageNo, revision, PageHeader.TYPE_FREE_BITS);
            w.free(pageNo, revision, 1);
        }
        return copyNo;
    }

    private long writableIndex(PageWriter w, long pageNo, long revision, int level) {
        if (pageNo != 0 && revision == w.revision()) {
            return pageNo;
        }
        long copyNo = w.allocate(1);
        long copy = w.address(copyNo);
        initIndex(copy, copyNo, w.revision(), level);
        if (pageNo != 0) {
            long old = w.page(pageNo, revision, PageHeader.TYPE_FREE_INDEX);
            checkLevel(old, pageNo, level);
            UNSAFE.copyMemory(old + BODY, copy + BODY, 16L * fanout);
            w.free(pageNo, revision, 1);
        }
        return copyNo;
    }

    private void initIndex(long addr, long pageNo, long revision, int level) {
        PageHeader.init(addr, PageHeader.TYPE_FREE_INDEX, pageNo, revision);
        UNSAFE.putInt(addr + LEVEL, level);
        UNSAFE.putInt(addr + LEVEL + 4, 0);
        UNSAFE.setMemory(addr + BODY, pageSize - BODY, (byte) 0);
    }

    private long bitsPageOf(PageWriter w, long slice) {
        if (height == 0) {
            return w.address(root);
        }
        long node = w.address(root);
        for (int level = height; level >= 1; level--) {
            int i = (int) ((slice / span(level - 1)) % fanout);
            node = w.address(UNSAFE.getLong(node + BODY + 16L * i));
        }
        return node;
    }

    private void writeBits(PageWriter w, FreeSpace space, long slice, long addr) {
        long first = slice * bitsPerPage;
        for (long bit = 0; bit < bitsPerPage; bit += 64) {
            UNSAFE.putLong(addr + BODY + bit / 8, space.inUse.word(first + bit));
        }
    }

    /** Visits the map's pages written after {@code since}: (page, revision, type). */
    void walk(PageReader r, long since, PageVisitor visitor) {
        if (root != 0) {
            walk(r, root, rootRevision, height, since, visitor);
        }
    }

    interface PageVisitor {
        void page(long pageNo, long revision, int type, long address);
    }

    private void walk(PageReader r, long pageNo, long revision, int level, long since, PageVisitor visitor) {
        if (revision <= since) {
            return;
        }
        if (level == 0) {
            visitor.page(pageNo, revision, PageHeader.TYPE_FREE_BITS,
                    r.page(pageNo, revision, PageHeader.TYPE_FREE_BITS));
            return;
        }
        long addr = r.page(pageNo, revision, PageHeader.TYPE_FREE_INDEX);
        checkLevel(addr, pageNo, level);
        visitor.page(pageNo, revision, PageHeader.TYPE_FREE_INDEX, addr);
        for (int i = 0; i < fanout; i++) {
            long child = UNSAFE.getLong(addr + BODY + 16L * i);
            long childRevision = UNSAFE.getLong(addr + BODY + 16L * i + 8);
            if (child != 0) {
                if (childRevision > revision) {
                    throw new CorruptionException(pageNo, "free-space index names a child newer than itself");
                }
                walk(r, child, childRevision, level - 1, since, visitor);
            }
        }
    }
}
