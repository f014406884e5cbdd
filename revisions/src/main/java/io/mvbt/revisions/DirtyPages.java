// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;

import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.pagestore.local.ShadowFile;

/**
 * The sole writer's pages since the durable revision, held in a {@link ShadowFile} instead of the
 * store file's mapping. A page the writer allocates gets a slot; a page number allocated again
 * before the checkpoint (commits free and reuse the same few numbers for the pages near the roots)
 * keeps its slot, so a page rewritten by many commits is written to the file once. A checkpoint
 * (or a SYNC commit) writes the slots of the revision it makes durable into the file with
 * positional writes ({@link #writeBack}); once the durable revision passed a slot's revision, the
 * writer lets the file hold the page ({@link #retire}), and the slot is used again once no reader
 * open then is left, as a reader may still hold its address ({@link #reclaim}).
 *
 * <p>Slots are used by the writer thread alone; {@link #writeBack} runs on the checkpoint's thread
 * and reads only slots of a revision it holds, which the writer does not touch.
 */
final class DirtyPages {
    private final FilePageStore file;
    private ShadowFile shadow;
    /** Page number held by each slot, or -1 (free, retired). */
    private long[] slotPage = new long[0];
    /** Revision that last wrote each slot. */
    private long[] slotRevision = new long[0];
    /**
     * Whether a pass wrote each slot's page into the file since the writer last took the slot (set
     * by the checkpoint's thread, read by the writer once the durable revision has moved past it).
     */
    private volatile boolean[] slotWritten = new boolean[0];
    /** Slots used at least once: the ones below this are in use, free or retired. */
    private int used;
    private int[] free = new int[64];
    private int freeCount;
    /** Retired slots and the revision after which they were retired, oldest first (a ring). */
    private int[] retired = new int[64];
    private long[] retiredAfter = new long[64];
    private int retiredHead;
    private int retiredCount;
    /** Slots holding a page. */
    private int held;
    /** The durable revision the slots were last retired for. */
    private long retiredThrough = -1;
    /** Whether the last {@link #retire} left slots of freed pages for old readers. */
    private boolean freedWaiting;

    DirtyPages(FilePageStore file) {
        this.file = file;
    }

    /** Holds the writer's pages in {@code shadow} from now on; the store file reads through it. */
    void attach(ShadowFile shadow) {
        this.shadow = shadow;
        int capacity = shadow.capacity();
        slotPage = new long[capacity];
        Arrays.fill(slotPage, -1);
        slotRevision = new long[capacity];
        slotWritten = new boolean[capacity];
        file.shadow(shadow);
    }

    boolean attached() {
        return shadow != null;
    }

    /** Whether the shadow is half full: time for a checkpoint. */
    boolean halfFull() {
        return shadow != null && held >= shadow.capacity() / 2;
    }

    /**
     * Gives {@code pageNo}, just allocated by the transaction writing {@code revision}, a slot;
     * returns its address, or 0 if the shadow is full (the page is then written in the file).
     */
    long take(long pageNo, long revision) {
        if (shadow == null) {
            return 0;
        }
        int slot = shadow.slotOf(pageNo);
        if (slot >= 0) {
            slotRevision[slot] = revision;
            slotWritten[slot] = false;
            return shadow.slotAddress(slot);
        }
        if (!shadow.index(file.pageCount())) {
            return 0;
        }
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else if (used < shadow.slotsTaken() || shadow.takeSlots()) {
            slot = used++;
        } else {
            return 0;
        }
        slotPage[slot] = pageNo;
        slotRevision[slot] = revision;
        slotWritten[slot] = false;
        held++;
        shadow.put(pageNo, slot);
        return shadow.slotAddress(slot);
    }

    /**
     * The transaction writes these pages, just allocated, into the file itself (an overflow run):
     * their slots are free at once, as no reader reaches a page that was free.
     */
    void drop(long pageNo, int pages) {
        if (shadow == null) {
            return;
        }
        for (long p = pageNo; p < pageNo + pages; p++) {
            int slot = shadow.slotOf(p);
            if (slot >= 0) {
                forget(slot, p);
                push(slot);
            }
        }
    }

    /** Writes {@code pageNo} into the store file if a slot holds it (a checkpoint's or SYNC commit's pass). */
    void writeBack(long pageNo) {
        ShadowFile s = shadow;
        if (s == null) {
            return;
        }
        int slot = s.slotOf(pageNo);
        if (slot >= 0) {
            file.write(pageNo, s.slotBuffer(slot));
            slotWritten[slot] = true;
        }
    }

    /**
     * Lets the file hold the pages a pass of a durable revision at or before {@code durable} wrote
     * (the slot's page as it is now); such a slot is reused once the readers open now are gone
     * ({@link #reclaim}), {@code latest} being the newest revision one can hold. A slot whose page
     * was freed before any pass wrote it goes too, but only once no reader is as old as
     * {@code durable}: until then an old snapshot may still read it.
     */
    void retire(long durable, long latest, long oldestReader) {
        boolean noOldReader = oldestReader < 0 || oldestReader > durable;
        if (shadow == null || durable == retiredThrough && !(freedWaiting && noOldReader)) {
            return;
        }
        retiredThrough = durable;
        freedWaiting = false;
        for (int slot = 0; slot < used; slot++) {
            long pageNo = slotPage[slot];
            if (pageNo < 0 || slotRevision[slot] > durable) {
                continue;
            }
            if (slotWritten[slot]) {
                forget(slot, pageNo);
                addRetired(slot, latest);
            } else if (noOldReader) {
                forget(slot, pageNo);
                push(slot);
            } else {
                freedWaiting = true;
            }
        }
    }

    private void forget(int slot, long pageNo) {
        shadow.clear(pageNo);
        slotPage[slot] = -1;
        held--;
    }

    /** Frees the retired slots no reader can hold any more: none is open, or the oldest opened after. */
    void reclaim(long oldestReader) {
        while (retiredCount > 0 && (oldestReader < 0 || oldestReader > retiredAfter[retiredHead])) {
            push(retired[retiredHead]);
            retiredHead = (retiredHead + 1) % retired.length;
            retiredCount--;
        }
    }

    /** Stops holding pages (at close, after the last checkpoint): the store file holds them all. */
    void detach(boolean delete) {
        ShadowFile s = shadow;
        if (s == null) {
            return;
        }
        shadow = null;
        file.shadow(null);
        if (delete) {
            s.delete();
        } else {
            s.close();
        }
    }

    private void push(int slot) {
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = slot;
    }

    private void addRetired(int slot, long after) {
        if (retiredCount == retired.length) {
            int[] slots = new int[retired.length * 2];
            long[] afters = new long[retired.length * 2];
            for (int i = 0; i < retiredCount; i++) {
                slots[i] = retired[(retiredHead + i) % retired.length];
                afters[i] = retiredAfter[(retiredHead + i) % retired.length];
            }
            retired = slots;
            retiredAfter = afters;
            retiredHead = 0;
        }
        int at = (retiredHead + retiredCount) % retired.length;
        retired[at] = slot;
        retiredAfter[at] = after;
        retiredCount++;
    }
}
