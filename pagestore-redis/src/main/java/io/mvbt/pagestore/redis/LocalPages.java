package io.mvbt.pagestore.redis;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayList;

/**
 * The local copy of a remote store's pages: slots of off-heap memory, found by page number through
 * a {@link PageTable}. Page numbers only grow (a remote store never writes one twice), so memory
 * is not laid out by page number: a page's slot is taken when it is first used (made here, or read
 * from Redis) and given back when the page is discarded, for the next new page to take. Memory thus
 * follows the pages in use, not every page number ever used, and a recycled slot costs no page
 * fault. A run of pages (a large value) gets contiguous slots; its first page number finds the run.
 *
 * <p>Memory is taken in arenas of 64 MiB (or one run's size) and kept; a slot's address stays valid
 * while the store is open.
 */
final class LocalPages {
    private static final int ARENA_BYTES = 64 << 20;

    /** One piece of memory, slots cut from its start. */
    private record Arena(ByteBuffer memory, long address, int bytes) {
    }

    private final int pageSize;
    private final PageTable table = new PageTable();
    private final List<Arena> arenas = new ArrayList<>();
    private Arena current;
    private int used;
    /** Single slots given back. */
    private final LongArrayList freeSlots = new LongArrayList();
    /** Runs of slots given back, by length. */
    private final TreeMap<Integer, LongArrayList> freeRuns = new TreeMap<>();
    /** The length of every run of more than one page, by its first page. */
    private final Long2LongHashMap runLengths = new Long2LongHashMap(0);
    private volatile Arena[] byAddress = new Arena[0];

    LocalPages(int pageSize) {
        this.pageSize = pageSize;
    }

    /** The address of {@code pageNo}'s slot, or 0 if it has none. */
    long address(long pageNo) {
        return table.get(pageNo);
    }

    /** Pages that have slots. */
    synchronized int pages() {
        return table.size();
    }

    /**
     * Gives {@code pageNo} (and the {@code count - 1} pages after it) contiguous slots holding
     * {@code content} (zeros if null), and returns the address of the first; if it has a slot
     * already, returns that. The slots are filled before anyone can find them.
     */
    synchronized long take(long pageNo, int count, byte[] content) {
        long existing = table.get(pageNo);
        if (existing != 0) {
            return existing;
        }
        long address = slots(count);
        long bytes = (long) count * pageSize;
        if (content == null) {
            UnsafeApi.setMemory(address, bytes, (byte) 0);
        } else {
            UnsafeApi.copyMemory(content, UnsafeApi.arrayBaseOffset(byte[].class), null, address, bytes);
        }
        if (count > 1) {
            synchronized (runLengths) {
                runLengths.put(pageNo, count);
            }
        }
        for (int i = 0; i < count; i++) {
            table.put(pageNo + i, address + (long) i * pageSize);
        }
        return address;
    }

    /** Frees the slots of the run that starts at {@code pageNo} (a single page, or a run of {@code count}). */
    synchronized void release(long pageNo, int count) {
        long address = table.remove(pageNo);
        if (address == 0) {
            return;
        }
        for (int i = 1; i < count; i++) {
            table.remove(pageNo + i);
        }
        if (count == 1) {
            freeSlots.addLong(address);
        } else {
            synchronized (runLengths) {
                runLengths.remove(pageNo);
            }
            giveBackRun(address, count);
        }
    }

    /** The end of the contiguous memory that holds {@code pageNo}: after its run, if it starts one. */
    long runEnd(long pageNo) {
        long length;
        synchronized (runLengths) {
            length = runLengths.get(pageNo);
        }
        return pageNo + Math.max(1, length);
    }

    private void giveBackRun(long address, int count) {
        freeRuns.computeIfAbsent(count, c -> new LongArrayList()).addLong(address);
    }

    /**
     * Contiguous free slots: a single one given back, else the shortest run given back that is long
     * enough (its rest given back again), else new memory. So runs of every length, and single
     * pages, reuse what runs gave back.
     */
    private long slots(int count) {
        if (count == 1 && !freeSlots.isEmpty()) {
            return freeSlots.removeAt(freeSlots.size() - 1);
        }
        Map.Entry<Integer, LongArrayList> fit = freeRuns.ceilingEntry(count);
        if (fit != null) {
            int length = fit.getKey();
            LongArrayList runs = fit.getValue();
            long address = runs.removeAt(runs.size() - 1);
            if (runs.isEmpty()) {
                freeRuns.remove(length);
            }
            if (length > count) {
                long rest = address + (long) count * pageSize;
                if (length - count == 1) {
                    freeSlots.addLong(rest);
                } else {
                    giveBackRun(rest, length - count);
                }
            }
            return address;
        }
        long bytes = (long) count * pageSize;
        if (current == null || used + bytes > current.bytes()) {
            int size = (int) Math.max(ARENA_BYTES, bytes);
            ByteBuffer memory = BufferUtil.allocateDirectAligned(size, io.mvbt.pagestore.PageStore.MIN_PAGE_SIZE);
            current = new Arena(memory, BufferUtil.address(memory), size);
            arenas.add(current);
            Arena[] sorted = arenas.toArray(new Arena[0]);
            java.util.Arrays.sort(sorted, (a, b) -> Long.compare(a.address(), b.address()));
            byAddress = sorted;
            used = 0;
        }
        long address = current.address() + used;
        used += (int) bytes;
        return address;
    }

    /** A ByteBuffer over {@code bytes} of memory from {@code address}, which lie in one arena. */
    ByteBuffer buffer(long address, int bytes) {
        Arena[] sorted = byAddress;
        int lo = 0;
        int hi = sorted.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (sorted[mid].address() <= address) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Arena arena = sorted[lo];
        ByteBuffer view = arena.memory().duplicate();
        int start = (int) (address - arena.address());
        view.limit(start + bytes).position(start);
        return view.slice();
    }
}
