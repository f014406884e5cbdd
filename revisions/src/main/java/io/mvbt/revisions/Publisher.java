// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.agrona.BufferUtil;
import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.StorageException;
import io.mvbt.pagestore.PageStore;

/**
 * The one owner of meta publication (LMDB funnels every meta through one function too): which
 * slot a meta goes to, its sequence number, writing it, and announcing it to readers; and the
 * newest revision and the durable one that follow from it. The writer and the checkpointer
 * publish under one lock ({@link #lock}); every method that writes a meta expects it held.
 *
 * <p>Rules kept here: a meta's sequence is above every sequence the file has held, so recovery
 * orders slots by it; a slot is chosen so that neither the last durable meta nor a steady copy not
 * yet synced is overwritten ({@link MetaSlots}); a sealed meta is announced only after its sync,
 * so no reader meets a SYNC commit that could still be lost.
 */
final class Publisher {
    /** A meta announced in the reader table ({@code sequence << 2 | slot}) and the revision it holds. */
    record Announcement(long word, Revision revision) {
    }

    private final PageStore pages;
    private final Checksums checksums;
    private final ReaderRegistry registry;
    /** The meta this process announced last, or null: readers and turns of this process need not read it back. */
    private volatile Announcement announced;
    /** Whether a SYNC commit's meta may be written positionally (a file: in place, not sent). */
    private final boolean positionalMeta;
    private final MetaSlots slots = new MetaSlots();
    /** Guards the meta slots and the publication of revisions; shared by the writer and checkpoints only. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Times the writer or a checkpoint found the lock held by the other and had to wait. */
    private final AtomicLong lockWaits = new AtomicLong();
    /** A page of direct memory in which SYNC commits build their meta (see {@link MetaPage#writePositional}). */
    private final ByteBuffer scratch;
    /** A page of direct memory in which a checkpoint builds its steady copy ({@link #prepareSteadyCopy}). */
    private final ByteBuffer steadyScratch;
    /** Random identity of the store, chosen at creation; seeds the page checksums. */
    private long storeId;
    private volatile Revision latest;
    private volatile long durableRevision;
    /** What holds unsealed pages, named in each meta written. */
    private volatile MetaPage.Holder holder = MetaPage.Holder.BOOT;
    /** {@link MetaPage#FLAG_LOGGED} while a redo log records the commits, else 0; in each meta written. */
    private volatile int logged;

    Publisher(PageStore pages, Writeback writeback, Checksums checksums, ReaderRegistry registry) {
        this.pages = pages;
        this.positionalMeta = writeback.reusesPages();
        this.checksums = checksums;
        this.registry = registry;
        this.scratch = BufferUtil.allocateDirectAligned(pages.pageSize(), 64);
        this.steadyScratch = BufferUtil.allocateDirectAligned(pages.pageSize(), 64);
    }

    Revision latest() {
        return latest;
    }

    long durableRevision() {
        return durableRevision;
    }

    /** Names {@code holder} in the metas written from now on. */
    void holder(MetaPage.Holder holder) {
        this.holder = holder;
    }

    long storeId() {
        return storeId;
    }

    /** Takes the id of the store a meta belongs to (it seeds the checksums). */
    void storeId(long id) {
        if (storeId != id) {
            storeId = id;
            checksums.seed(id);
        }
    }

    long lockWaits() {
        return lockWaits.get();
    }

    /** Takes the lock, counting the times it was held by the other side. */
    void lock() {
        if (!lock.tryLock()) {
            lockWaits.incrementAndGet();
            lock.lock();
        }
    }

    void unlock() {
        lock.unlock();
    }

    /** The slot of the newest meta. */
    int head() {
        return slots.head();
    }

    /** A store of this process only (in memory): the revision is the newest, with no meta to write. */
    void publishUnwritten(Revision r) {
        latest = r;
    }

    /** Writes the first meta of a new store, sealed and synced: revision 0, durable. */
    void publishFirst(Revision first, FlipSet flips, Runnable sync) {
        if (pages.durable()) {
            long seq = slots.takeSequence();
            MetaPage.write(pages, checksums, storeId, holder, 0, seq, first, 0, MetaPage.FLAG_SEALED, flips);
            sync.run();
            wrote(0, seq, first);
            slots.setDurable(0);
        }
        latest = first;
        durableRevision = 0;
    }

    /** A meta that is not sealed (a NORMAL commit, a shrink): {@code r} is the newest, durable as before. */
    void publish(Revision r, FlipSet flips) {
        assert lock.isHeldByCurrentThread();
        int slot = slots.choose();
        long seq = slots.takeSequence();
        MetaPage.write(pages, checksums, storeId, holder, slot, seq, r, r.durableRevision, logged, flips);
        wrote(slot, seq, r);
        latest = r;
    }

    /**
     * A SYNC commit's meta, sealed: written (positionally where the file allows), synced together
     * with the commit's pages by {@code sync}, and only then announced; {@code r} is then the
     * newest revision and durable.
     */
    void publishSynced(Revision r, FlipSet flips, Runnable sync) {
        assert lock.isHeldByCurrentThread();
        int slot = slots.choose();
        long seq = slots.takeSequence();
        writeSynced(slot, seq, r, flips);
        slots.wrote(slot, seq, r.revision);
        sync.run();
        announce(slot, seq, r);
        slots.setDurable(slot);
        durableRevision = r.revision;
        latest = r;
    }

    /**
     * The meta of a SYNC commit, positionally where the file allows it. A failed write there is
     * repaired through the mapping, which cannot fail: the slot may hold the newest revision, and a
     * half-written one must not be left in it.
     */
    private void writeSynced(int slot, long seq, Revision r, FlipSet flips) {
        if (positionalMeta) {
            try {
                MetaPage.writePositional(scratch, pages, checksums, storeId, holder,
                        slot, seq, r, r.durableRevision,
                        MetaPage.FLAG_SEALED | logged, flips);
                return;
            } catch (StorageException e) {
                // Written below.
            }
        }
        MetaPage.write(pages, checksums, storeId, holder, slot, seq, r, r.durableRevision,
                MetaPage.FLAG_SEALED | logged, flips);
    }

    /**
     * A checkpoint's steady copy of the newest meta, which names {@code h}; returns its slot, which
     * stays pending (never chosen for another meta) until {@link #steadyCopySynced}.
     */
    int publishSteadyCopy(Revision h) {
        assert lock.isHeldByCurrentThread();
        int pending = slots.choose();
        long seq = slots.takeSequence();
        MetaPage.writeSteadyCopy(pages, checksums, slots.head(), pending, seq, logged);
        wrote(pending, seq, h);
        slots.setPending(pending);
        return pending;
    }

    /** A steady copy of a meta, prepared under the meta lock and written outside it. */
    record SteadyCopy(int slot, long sequence, Revision revision, ByteBuffer page, int length) {
    }

    /**
     * Prepares a steady copy of the newest meta, which names {@code h}, in a page of its own: its
     * slot stays pending (chosen by no meta) and the slots do not count it as written until
     * {@link #steadyCopySynced(SteadyCopy)}, so the newest meta keeps its protection meanwhile.
     */
    SteadyCopy prepareSteadyCopy(Revision h) {
        assert lock.isHeldByCurrentThread();
        int pending = slots.choose();
        long seq = slots.takeSequence();
        int length = MetaPage.buildSteadyCopy(pages, checksums, slots.head(), steadyScratch, seq, logged);
        slots.setPending(pending);
        return new SteadyCopy(pending, seq, h, steadyScratch, length);
    }

    /** Writes a prepared steady copy into its slot (positionally; the caller syncs). */
    void writeSteadyCopy(SteadyCopy copy) {
        MetaPage.writeBuilt(copy.page(), copy.length(), pages, copy.slot());
    }

    /** A prepared steady copy that will not be made durable (its checkpoint failed): its slot may be chosen again. */
    void dropSteadyCopy(SteadyCopy copy) {
        assert lock.isHeldByCurrentThread();
        if (slots.pending() == copy.slot()) {
            slots.setPending(-1);
        }
    }

    /**
     * The steady copy is written and synced: its slot holds it, announced if it is still the
     * newest meta, and its revision becomes durable unless a SYNC commit made a newer one durable
     * meanwhile. Returns the durable revision it replaced, or -1.
     */
    long steadyCopySynced(SteadyCopy copy) {
        assert lock.isHeldByCurrentThread();
        slots.wrote(copy.slot(), copy.sequence(), copy.revision().revision);
        if (slots.head() == copy.slot()) {
            announce(copy.slot(), copy.sequence(), copy.revision());
        }
        return steadyCopySynced(copy.slot(), copy.revision());
    }

    /**
     * The steady copy in {@code pending} is synced: {@code h} becomes durable, unless a SYNC commit
     * made a newer revision durable meanwhile. Returns the durable revision it replaced, or -1.
     */
    long steadyCopySynced(int pending, Revision h) {
        assert lock.isHeldByCurrentThread();
        slots.setPending(-1);
        if (durableRevision >= h.revision) {
            return -1;
        }
        long replaced = durableRevision;
        slots.setDurable(pending);
        durableRevision = h.revision;
        return replaced;
    }

    /**
     * Takes on the slots as recovery found them, opening at {@code chosen}: newer metas are wiped
     * (so that no later recovery weighs them and no meta written from now on lands in a slot that
     * is wiped afterwards). Returns whether any was wiped, which the caller syncs.
     */
    boolean adopt(List<MetaPage.Record> metas, MetaPage.Record chosen, Revision opened) {
        long steadySequence = -1;
        boolean wiped = false;
        for (MetaPage.Record m : metas) {
            slots.seen(m.sequence);
            if (m.sequence <= chosen.sequence) {
                slots.wrote(m.slot, m.sequence, m.revision);
                if (m.steady() && m.sequence > steadySequence) {
                    steadySequence = m.sequence;
                    slots.setDurable(m.slot);
                }
            } else {
                UNSAFE.setMemory(pages.address(m.slot), pages.pageSize(), (byte) 0);
                pages.written(m.slot, 1);
                wiped = true;
            }
        }
        latest = opened;
        durableRevision = chosen.durableRevision;
        return wiped;
    }

    /** Forgets the slots, before the metas of another writer's turn are adopted. */
    void resetSlots() {
        slots.reset();
    }

    /** A read-only store follows the revision another process published. */
    void follow(Revision r) {
        latest = r;
        durableRevision = r.durableRevision;
    }

    /** Announces the newest meta in the reader table, unless it is announced already. */
    void announceHead() {
        int head = slots.head();
        long word = slots.sequenceOf(head) << 2 | head;
        announced = new Announcement(word, latest);
        if (registry.published() != word) {
            registry.publish(word);
        }
    }

    /** The meta this process announced last, or null if it announced none. */
    Announcement lastAnnounced() {
        return announced;
    }

    /** The word of {@link #lastAnnounced}, or 0 (the reader table's word before any announcement). */
    long lastAnnouncedWord() {
        Announcement a = announced;
        return a == null ? 0 : a.word;
    }

    /**
     * A redo log records the commits from now on (or no longer): the metas written from now on say
     * so. A meta that says otherwise is not steady ({@link #headIsSteady}), so that the next
     * checkpoint writes one that does.
     */
    void logging(boolean on) {
        logged = on ? MetaPage.FLAG_LOGGED : 0;
    }

    /**
     * Whether the newest meta is steady (its revision durable when it was written) and says whether a
     * redo log records as it does now.
     */
    boolean headIsSteady() {
        return MetaPage.isSteady(pages, slots.head(), logged);
    }

    private void wrote(int slot, long seq, Revision r) {
        slots.wrote(slot, seq, r.revision);
        announce(slot, seq, r);
    }

    private void announce(int slot, long seq, Revision r) {
        long word = seq << 2 | slot;
        // Set first: whoever reads the new word in the reader table finds the revision it names here.
        announced = new Announcement(word, r);
        registry.publish(word);
    }
}
