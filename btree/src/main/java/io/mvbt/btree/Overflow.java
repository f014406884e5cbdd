// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.CorruptionException;

/**
 * Values too large for a leaf live in runs of contiguous overflow pages, so a 100 KB value costs
 * about 100 KB. A value larger than one run ({@link PageWriter#maxRunPages()}) is a chain of runs.
 * Runs are written once and never change: copying the leaf that points at them copies only the
 * 20-byte reference. The first page of each run carries, after the {@link PageHeader}:
 *
 * <pre>
 * 24 u32 pages      pages in this run
 * 28 u32 bytes      value bytes in this run
 * 32 u64 next       first page of the next run, 0 if last
 * 40 u64 nextRev    revision of the next run
 * 48 ...            value bytes
 * </pre>
 */
public final class Overflow {
    public static final int PAGES = 24;
    public static final int BYTES = 28;
    public static final int NEXT = 32;
    public static final int NEXT_REVISION = 40;
    public static final int DATA = 48;

    private Overflow() {
    }

    /** Pages a value of {@code length} bytes takes. */
    public static long pagesFor(long length, int pageSize, int maxRunPages) {
        long perRun = (long) maxRunPages * pageSize - DATA;
        long runs = Math.max(1, (length + perRun - 1) / perRun);
        long lastBytes = length - (runs - 1) * perRun;
        return (runs - 1) * maxRunPages + (lastBytes + DATA + pageSize - 1) / pageSize;
    }

    /**
     * Writes a value into new runs, last run first so that each run can name the next; returns the
     * first page (written at {@code w.revision()}).
     */
    public static long write(PageWriter w, Object base, long offset, int length) {
        int pageSize = w.pageSize();
        long perRun = (long) w.maxRunPages() * pageSize - DATA;
        int runs = (int) Math.max(1, (length + perRun - 1) / perRun);
        long next = 0;
        for (int r = runs - 1; r >= 0; r--) {
            long start = r * perRun;
            int bytes = (int) Math.min(perRun, length - start);
            int pages = (bytes + DATA + pageSize - 1) / pageSize;
            long pageNo = w.allocate(pages);
            // Built off the store and written in one piece: see PageWriter.writeRun.
            long address = w.runScratch(pages * pageSize);
            PageHeader.init(address, PageHeader.TYPE_OVERFLOW, pageNo, w.revision());
            UNSAFE.putInt(address + PAGES, pages);
            UNSAFE.putInt(address + BYTES, bytes);
            UNSAFE.putLong(address + NEXT, next);
            UNSAFE.putLong(address + NEXT_REVISION, next == 0 ? 0 : w.revision());
            UNSAFE.copyMemory(base, offset + start, null, address + DATA, bytes);
            long tail = (long) pages * pageSize - DATA - bytes;
            if (tail > 0) {
                UNSAFE.setMemory(address + DATA + bytes, tail, (byte) 0);
            }
            w.writeRun(pageNo, pages);
            next = pageNo;
        }
        return next;
    }

    /** Address of the value bytes if the value is one run, else 0. */
    public static long contiguousAddress(PageReader r, long pageNo, long revision, int length) {
        long address = r.page(pageNo, revision, PageHeader.TYPE_OVERFLOW);
        if (UNSAFE.getLong(address + NEXT) != 0) {
            return 0;
        }
        checkBytes(pageNo, address, length);
        return address + DATA;
    }

    /** Copies the value, run by run, to {@code (base, offset)}. */
    public static void read(PageReader r, long pageNo, long revision, int length, Object base, long offset) {
        long copied = 0;
        long runNo = pageNo;
        long rev = revision;
        while (runNo != 0) {
            long address = r.page(runNo, rev, PageHeader.TYPE_OVERFLOW);
            int bytes = UNSAFE.getInt(address + BYTES);
            if (bytes < 0 || copied + bytes > length) {
                throw new CorruptionException(runNo, "overflow chain holds more than the " + length
                        + " bytes its entry says");
            }
            UNSAFE.copyMemory(null, address + DATA, base, offset + copied, bytes);
            copied += bytes;
            rev = UNSAFE.getLong(address + NEXT_REVISION);
            runNo = UNSAFE.getLong(address + NEXT);
        }
        if (copied != length) {
            throw new CorruptionException(pageNo, "overflow chain holds " + copied + " bytes, its entry says "
                    + length);
        }
    }

    /** Frees every run of a value of {@code length} bytes. */
    public static void free(PageWriter w, long pageNo, long revision, int length) {
        long runNo = pageNo;
        long rev = revision;
        long bytes = 0;
        while (runNo != 0) {
            long address = w.page(runNo, rev, PageHeader.TYPE_OVERFLOW);
            int pages = UNSAFE.getInt(address + PAGES);
            // Every run holds at least one byte: a chain longer than the value is a cycle.
            bytes += UNSAFE.getInt(address + BYTES);
            if (bytes > length) {
                throw new CorruptionException(runNo, "overflow chain holds more than the " + length
                        + " bytes its entry says");
            }
            long next = UNSAFE.getLong(address + NEXT);
            long nextRev = UNSAFE.getLong(address + NEXT_REVISION);
            w.free(runNo, rev, pages);
            runNo = next;
            rev = nextRev;
        }
    }

    /**
     * Tells {@code visitor} of every run of a value of {@code length} bytes written after
     * {@code keepThrough} (all of them or none: a value is written whole), reading each run's first
     * page.
     */
    static void forEachRun(PageReader r, long pageNo, long revision, int length, long keepThrough,
            TreeEditor.Movable visitor) {
        long bytes = 0;
        for (long runNo = pageNo, rev = revision; runNo != 0 && rev > keepThrough;) {
            long address = r.page(runNo, rev, PageHeader.TYPE_OVERFLOW);
            int pages = UNSAFE.getInt(address + PAGES);
            // Every run holds at least one byte: a chain longer than the value is a cycle.
            bytes += UNSAFE.getInt(address + BYTES);
            if (pages <= 0 || bytes > length) {
                throw new CorruptionException(runNo, "overflow chain holds more than the " + length
                        + " bytes its entry says");
            }
            visitor.page(runNo, rev, pages, false);
            rev = UNSAFE.getLong(address + NEXT_REVISION);
            runNo = UNSAFE.getLong(address + NEXT);
        }
    }

    /**
     * Copies a value whose runs reach page {@code limit} or beyond into new runs, freeing the old
     * ones; returns the new first page (written at {@code w.revision()}), or -1 if no run reaches
     * the limit. Runs are copied whole, last first, so that each names the next.
     */
    public static long relocate(PageWriter w, long pageNo, long revision, int length, long limit) {
        int runs = 0;
        boolean reaches = false;
        long[] chain = new long[2];
        long bytes = 0;
        for (long runNo = pageNo, rev = revision; runNo != 0;) {
            long address = w.page(runNo, rev, PageHeader.TYPE_OVERFLOW);
            int pages = UNSAFE.getInt(address + PAGES);
            bytes += UNSAFE.getInt(address + BYTES);
            if (pages <= 0 || bytes > length) {
                throw new CorruptionException(runNo, "overflow chain holds more than the " + length
                        + " bytes its entry says");
            }
            reaches |= runNo + pages > limit;
            if (2 * runs + 2 > chain.length) {
                chain = java.util.Arrays.copyOf(chain, chain.length * 2);
            }
            chain[2 * runs] = runNo;
            chain[2 * runs + 1] = rev;
            runs++;
            rev = UNSAFE.getLong(address + NEXT_REVISION);
            runNo = UNSAFE.getLong(address + NEXT);
        }
        if (!reaches) {
            return -1;
        }
        int pageSize = w.pageSize();
        long next = 0;
        for (int r = runs - 1; r >= 0; r--) {
            long oldNo = chain[2 * r];
            long oldRev = chain[2 * r + 1];
            long old = w.page(oldNo, oldRev, PageHeader.TYPE_OVERFLOW);
            int pages = UNSAFE.getInt(old + PAGES);
            long copyNo = w.allocate(pages);
            long address = w.runScratch(pages * pageSize);
            UNSAFE.copyMemory(old, address, (long) pages * pageSize);
            PageHeader.init(address, PageHeader.TYPE_OVERFLOW, copyNo, w.revision());
            UNSAFE.putLong(address + NEXT, next);
            UNSAFE.putLong(address + NEXT_REVISION, next == 0 ? 0 : w.revision());
            w.writeRun(copyNo, pages);
            w.free(oldNo, oldRev, pages);
            next = copyNo;
        }
        return next;
    }

    private static void checkBytes(long pageNo, long address, int length) {
        if (UNSAFE.getInt(address + BYTES) != length) {
            throw new CorruptionException(pageNo, "overflow run holds " + UNSAFE.getInt(address + BYTES)
                    + " bytes, its entry says " + length);
        }
    }
}
