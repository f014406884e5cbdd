// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

import org.agrona.BufferUtil;
import static org.agrona.UnsafeAccess.UNSAFE;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayList;

import io.mvbt.CorruptionException;

/**
 * The local copy of a remote store's pages: slots of off-heap memory, found by page number through
 * a {@link PageTable}, within a memory budget. Page numbers only grow (a remote store never writes
 * one twice), so memory is not laid out by page number: a page's slot is taken when it is first used
 * (made here, or read from Redis), and given back when the page is discarded or evicted. A run of
 * pages (a large value) gets contiguous slots; its first page number finds the run.
 *
 * <p><b>Eviction.</b> Past the budget, pages that are in Redis (read from it, or sent to it) give
 * their slots back, least recently used first (a clock over the slots, by epoch stamps). A page
 * made here and not yet sent is never evicted. An address handed out must stay valid while its
 * holder may use it: every span that keeps addresses (a snapshot, a write turn) is entered with
 * {@link #beginSpan()}, and every lookup stamps the page with the current epoch, so a page touched
 * since the oldest open span began is not evicted. The evictor and a lookup each write (the mapping's
 * removal; the stamp) then read what the other writes, with a full fence between: one of them sees
 * the other, so a page is never evicted under a lookup that goes on to use it.
 *
 * <p>Memory is taken in arenas (at most 64 MiB, or one run's size) and kept until the store closes.
 */
final class LocalPages {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final long NO_PAGE = -1;
    /** The stamp of a slot the evictor freed: lookups that find it look again. */
    private static final long FREED = -1;
    private static final int MAX_ARENA_BYTES = 64 << 20;
    private static final int MIN_ARENA_BYTES = 1 << 20;

    /**
     * One piece of memory cut into slots. Per slot: {@code marks[2i]} the epoch of its last lookup,
     * {@code marks[2i + 1]} the page it holds; {@code lengths[i]} the length of the run it starts
     * (1 for a single page, 0 inside a run); {@code sent[i]} whether the page is in Redis (-1), is
     * being sent by the capture of that ticket (above 0), or is only here (0).
     */
    private record Arena(int index, ByteBuffer memory, long address, int slots, long[] marks, int[] lengths,
            long[] sent) {
    }

    private final int pageSize;
    private final long budgetSlots;
    private final int arenaSlots;
    /** Pages evicted per pass: a thirty-second of the budget, so that a pass is rare and the clock stays cheap. */
    private final int batch;
    private final PageTable table = new PageTable();
    private volatile Arena[] arenas = new Arena[0];
    private Arena current;
    private int used;
    /** Single slots given back (slot ids). */
    private final LongArrayList freeSlots = new LongArrayList();
    /** Runs of slots given back (first slot ids), by length. */
    private final TreeMap<Integer, LongArrayList> freeRuns = new TreeMap<>();
    /** Slots that hold pages. */
    private long occupied;
    /**
     * Below this, a pass that could not free enough is not tried again (pages held by open spans);
     * 0 while the last pass freed enough. Read by {@link #endSpan} without the lock.
     */
    private volatile long retryAt;
    private long evictions;
    private int hand;
    private int handArena;

    /** The epoch lookups stamp pages with; advanced by each eviction pass (under {@link #spans}). */
    private volatile long epoch = 1;
    /** Open spans by the epoch they entered at: how many each. */
    private final Long2LongHashMap spans = new Long2LongHashMap(0);

    LocalPages(int pageSize) {
        this(pageSize, Long.MAX_VALUE);
    }

    /** Local pages kept within {@code budgetBytes} (pages held by open spans, or not yet sent, may exceed it). */
    LocalPages(int pageSize, long budgetBytes) {
        this.pageSize = pageSize;
        this.budgetSlots = Math.max(budgetBytes / pageSize, 64);
        this.batch = (int) Math.min(Math.max(budgetSlots / 32, 16), 1 << 16);
        long arenaBytes = Math.min(Math.max(budgetBytes / 8, MIN_ARENA_BYTES), MAX_ARENA_BYTES);
        this.arenaSlots = (int) (arenaBytes / pageSize);
    }

    // ------------------------------------------------------------------ spans

    /** Begins a span in which addresses may be kept; returns its epoch, for {@link #endSpan}. */
    long beginSpan() {
        synchronized (spans) {
            long e = epoch;
            spans.put(e, spans.get(e) + 1);
            return e;
        }
    }

    /** Ends a span begun at {@code e}: the pages it touched may be evicted once no older span is open. */
    void endSpan(long e) {
        boolean freesPages;
        synchronized (spans) {
            long n = spans.get(e) - 1;
            if (n <= 0) {
                spans.remove(e);
            } else {
                spans.put(e, n);
            }
            freesPages = retryAt != 0 && n <= 0 && e <= oldestSpan(Long.MAX_VALUE);
        }
        if (freesPages) {
            // The oldest span held what passed the budget: evict now, not at the next page read.
            synchronized (this) {
                retryAt = 0;
                makeRoom(0);
            }
        }
    }

    /** The epoch of the oldest open span, or {@code none}; under {@link #spans}. */
    private long oldestSpan(long none) {
        long oldest = none;
        for (Long2LongHashMap.KeyIterator it = spans.keySet().iterator(); it.hasNext(); ) {
            oldest = Math.min(oldest, it.nextValue());
        }
        return oldest;
    }

    // ------------------------------------------------------------------ lookups

    /** The address of {@code pageNo}'s slot, or 0 if it has none; kept from eviction for the spans open now. */
    long address(long pageNo) {
        while (true) {
            long id = table.get(pageNo);
            if (id == 0) {
                return 0;
            }
            Arena a = arenas[arenaOf(id)];
            int slot = (int) id;
            long now = epoch;
            if ((long) LONGS.getAcquire(a.marks, 2 * slot) < now) {
                // Still mapped after the stamp: an evictor that unmaps it from now on sees the stamp.
                if (!raiseStamp(a, slot, now) || table.get(pageNo) != id) {
                    continue;
                }
            }
            // The page check catches a slot freed and taken by another page since the mapping was read.
            if (a.marks[2 * slot + 1] == pageNo) {
                return a.address + (long) slot * pageSize;
            }
            checkMapping(pageNo, id);
        }
    }

    /**
     * Raises a slot's stamp to {@code now} (never lowers it), then fences before the caller reads
     * the mapping again; false if the evictor freed the slot.
     */
    private static boolean raiseStamp(Arena a, int slot, long now) {
        long s = (long) LONGS.getVolatile(a.marks, 2 * slot);
        while (s < now && s != FREED && !LONGS.compareAndSet(a.marks, 2 * slot, s, now)) {
            s = (long) LONGS.getVolatile(a.marks, 2 * slot);
        }
        VarHandle.fullFence();
        return s != FREED;
    }

    /** A mapping that still names a slot of another page, with no eviction under way, is a broken table. */
    private synchronized void checkMapping(long pageNo, long id) {
        if (table.get(pageNo) == id && arenas[arenaOf(id)].marks[2 * (int) id + 1] != pageNo) {
            throw new IllegalStateException("local page table maps page " + pageNo + " to the slot of page "
                    + arenas[arenaOf(id)].marks[2 * (int) id + 1]);
        }
    }

    /** Whether {@code pageNo} has a slot (a hint: it may be evicted right after). */
    boolean has(long pageNo) {
        return table.get(pageNo) != 0;
    }

    /** The end of the contiguous memory that holds {@code pageNo}: after its run, if it starts one. */
    long runEnd(long pageNo) {
        long id = table.get(pageNo);
        if (id == 0) {
            return pageNo + 1;
        }
        return pageNo + Math.max(1, arenas[arenaOf(id)].lengths[(int) id]);
    }

    /** Pages that have slots. */
    synchronized long pages() {
        return occupied;
    }

    /** Pages evicted so far. */
    synchronized long evictions() {
        return evictions;
    }

    /** Slots the budget allows. */
    long budgetPages() {
        return budgetSlots;
    }

    // ------------------------------------------------------------------ taking and giving back

    /**
     * Gives {@code pageNo} (and the {@code count - 1} pages after it) contiguous slots holding
     * {@code content} (zeros if null), and returns the address of the first; if it has a slot
     * already, returns that. The slots are filled before anyone can find them. Content read from
     * Redis may be evicted; zeros are a page made here, kept until it is sent.
     */
    synchronized long take(long pageNo, int count, byte[] content) {
        long existing = table.get(pageNo);
        if (existing != 0) {
            Arena a = arenas[arenaOf(existing)];
            raiseStamp(a, (int) existing, epoch);
            return a.address + (long) (int) existing * pageSize;
        }
        for (int i = 1; i < count; i++) {
            if (table.get(pageNo + i) != 0) {
                throw new CorruptionException(pageNo, "is read as a run of " + count + " pages, but page "
                        + (pageNo + i) + " inside it was read on its own");
            }
        }
        makeRoom(count);
        long id = slots(count);
        Arena a = arenas[arenaOf(id)];
        int slot = (int) id;
        long address = a.address + (long) slot * pageSize;
        long bytes = (long) count * pageSize;
        if (content == null) {
            UNSAFE.setMemory(address, bytes, (byte) 0);
        } else {
            UNSAFE.copyMemory(content, UNSAFE.arrayBaseOffset(byte[].class), null, address, bytes);
        }
        long now = epoch;
        for (int i = 0; i < count; i++) {
            a.lengths[slot + i] = i == 0 ? count : 0;
            a.sent[slot + i] = content == null ? 0 : -1;
            a.marks[2 * (slot + i) + 1] = pageNo + i;
            LONGS.setRelease(a.marks, 2 * (slot + i), now);
        }
        for (int i = 0; i < count; i++) {
            table.put(pageNo + i, id + i);
        }
        occupied += count;
        return address;
    }

    /** Frees the slots of the run that starts at {@code pageNo} (a single page, or a run of {@code count}). */
    synchronized void release(long pageNo, int count) {
        long id = table.get(pageNo);
        if (id == 0) {
            return;
        }
        Arena a = arenas[arenaOf(id)];
        // The run's own length: a wrong count must not free slots of other pages.
        int length = a.lengths[(int) id];
        if (length <= 0) {
            return;
        }
        for (int i = 0; i < length; i++) {
            table.remove(pageNo + i);
        }
        free(a, (int) id, length);
    }

    /** The run starting at {@code pageNo} was written again: it is only here until it is sent. */
    synchronized void written(long pageNo) {
        long id = table.get(pageNo);
        if (id != 0) {
            arenas[arenaOf(id)].sent[(int) id] = 0;
        }
    }

    /** The capture of {@code ticket} copied the run starting at {@code pageNo}. */
    synchronized void copied(long pageNo, long ticket) {
        long id = table.get(pageNo);
        if (id != 0) {
            arenas[arenaOf(id)].sent[(int) id] = ticket + 1;
        }
    }

    /** The capture of {@code ticket} reached Redis: its runs not written since may be evicted. */
    synchronized void sent(LongArrayList heads, long ticket) {
        for (int i = 0; i < heads.size(); i++) {
            long id = table.get(heads.getLong(i));
            if (id != 0) {
                Arena a = arenas[arenaOf(id)];
                if (a.sent[(int) id] == ticket + 1) {
                    a.sent[(int) id] = -1;
                }
            }
        }
    }

    private void free(Arena a, int slot, int count) {
        for (int i = 0; i < count; i++) {
            a.marks[2 * (slot + i) + 1] = NO_PAGE;
            a.lengths[slot + i] = 0;
        }
        long id = idOf(a, slot);
        if (count == 1) {
            freeSlots.addLong(id);
        } else {
            giveBackRun(id, count);
        }
        occupied -= count;
    }

    private void giveBackRun(long id, int count) {
        freeRuns.computeIfAbsent(count, c -> new LongArrayList()).addLong(id);
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
            long id = runs.removeAt(runs.size() - 1);
            if (runs.isEmpty()) {
                freeRuns.remove(length);
            }
            if (length > count) {
                giveBack(id + count, length - count);
            }
            return id;
        }
        if (current == null || used + count > current.slots()) {
            if (current != null && used < current.slots()) {
                giveBack(idOf(current, used), current.slots() - used);
            }
            newArena(Math.max(arenaSlots, count));
        }
        long id = idOf(current, used);
        used += count;
        return id;
    }

    private void giveBack(long id, int count) {
        if (count == 1) {
            freeSlots.addLong(id);
        } else {
            giveBackRun(id, count);
        }
    }

    private void newArena(int slots) {
        int bytes = slots * pageSize;
        ByteBuffer memory = BufferUtil.allocateDirectAligned(bytes, io.mvbt.pagestore.PageStore.MIN_PAGE_SIZE);
        long[] marks = new long[2 * slots];
        for (int i = 1; i < marks.length; i += 2) {
            marks[i] = NO_PAGE;
        }
        Arena[] old = arenas;
        current = new Arena(old.length, memory, BufferUtil.address(memory), slots, marks, new int[slots],
                new long[slots]);
        Arena[] grown = Arrays.copyOf(old, old.length + 1);
        grown[old.length] = current;
        arenas = grown;
        used = 0;
    }

    /** A slot id: its arena's index plus one in the upper half (so that no id is 0), its slot in the lower. */
    private static long idOf(Arena a, int slot) {
        return (long) (a.index() + 1) << 32 | slot;
    }

    private static int arenaOf(long id) {
        return (int) (id >>> 32) - 1;
    }

    // ------------------------------------------------------------------ eviction

    /** Evicts before {@code count} more slots would pass the budget. */
    private void makeRoom(int count) {
        if (occupied + count <= budgetSlots || occupied + count < retryAt) {
            return;
        }
        long wanted = occupied + count - budgetSlots + batch;
        long freed = evict(wanted);
        // What open spans hold may pass the budget; try again a batch later (or when the oldest span ends), not on every page.
        retryAt = freed >= wanted ? 0 : occupied + count + batch;
    }

    /**
     * One pass of the clock: starts a new epoch, then gives back the slots of sent pages not
     * looked up since the oldest open span began; first only those not looked up in the last epoch
     * either (least recently used), then any it may. Returns the slots freed.
     */
    private long evict(long wanted) {
        long now;
        long oldest;
        synchronized (spans) {
            now = epoch + 1;
            epoch = now;
            oldest = oldestSpan(now);
        }
        long freed = 0;
        long total = 0;
        for (Arena a : arenas) {
            total += a.slots();
        }
        for (int round = 0; round < 2 && freed < wanted; round++) {
            long below = round == 0 ? Math.min(oldest, now - 1) : oldest;
            for (long seen = 0; seen < total && freed < wanted; seen++) {
                Arena a = arenas[handArena];
                int slot = hand;
                if (++hand == a.slots()) {
                    hand = 0;
                    handArena = (handArena + 1) % arenas.length;
                }
                int length = a.lengths[slot];
                if (length > 0 && a.sent[slot] == -1 && slot + length <= a.slots()
                        && newestStamp(a, slot, length) < below) {
                    freed += tryEvict(a, slot, length, below);
                }
            }
        }
        evictions += freed;
        return freed;
    }

    private static long newestStamp(Arena a, int slot, int length) {
        long newest = 0;
        for (int i = 0; i < length; i++) {
            newest = Math.max(newest, (long) LONGS.getVolatile(a.marks, 2 * (slot + i)));
        }
        return newest;
    }

    /** Unmaps a run, fences, and frees it unless a lookup stamped it meanwhile (then maps it again). */
    private long tryEvict(Arena a, int slot, int length, long below) {
        long pageNo = a.marks[2 * slot + 1];
        for (int i = 0; i < length; i++) {
            table.remove(pageNo + i);
        }
        VarHandle.fullFence();
        // Each stamp goes to FREED by compare-and-set, so that no lookup raises it meanwhile and goes on.
        for (int i = 0; i < length; i++) {
            long stamp = (long) LONGS.getVolatile(a.marks, 2 * (slot + i));
            if (stamp >= below || !LONGS.compareAndSet(a.marks, 2 * (slot + i), stamp, FREED)) {
                keep(a, slot, length, i, pageNo);
                return 0;
            }
        }
        free(a, slot, length);
        return length;
    }

    /** Undoes an eviction that found the run looked up: its first {@code freed} stamps back, and its mappings. */
    private void keep(Arena a, int slot, int length, int freed, long pageNo) {
        long now = epoch;
        for (int i = 0; i < freed; i++) {
            LONGS.setVolatile(a.marks, 2 * (slot + i), now);
        }
        long id = idOf(a, slot);
        for (int i = 0; i < length; i++) {
            table.put(pageNo + i, id + i);
        }
    }

    /** A ByteBuffer over {@code bytes} of memory from the slot of {@code pageNo}, which has one (looked up in a span). */
    ByteBuffer buffer(long pageNo, int bytes) {
        long id = table.get(pageNo);
        if (id == 0) {
            throw new IllegalStateException("page " + pageNo + " has no slot");
        }
        Arena arena = arenas[arenaOf(id)];
        int start = (int) id * pageSize;
        ByteBuffer view = arena.memory().duplicate();
        view.limit(start + bytes).position(start);
        return view.slice();
    }
}
