// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.security.SecureRandom;

import org.agrona.collections.LongArrayList;

import io.mvbt.StorageException;
import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.SharedPages;

/**
 * The writer of a store on shared storage, with readers on other hosts (see {@link Peers} and
 * {@link SharedPages}). Besides what this process's snapshots hold, it keeps what those readers
 * registered, and each revision it replaced until no reader can be between reading its meta and
 * registering it. A writer that opens an existing store sweeps the pages earlier writers left
 * behind once no reader elsewhere can reach them.
 *
 * <p>A writer that takes over a store starts its revisions far above the newest it found
 * ({@link #sessionRevision}). Pages are checked against the pointer that reaches them (page number
 * and the revision that wrote it), so a page sent by a writer that lost its lease, even to a page
 * number its successor uses (the reservation that keeps them apart lost in a failover), never
 * passes for the successor's: its revision is one the successor's metas never name.
 */
final class RemoteWriterPeers implements Peers {
    /** How often the writer looks at the registrations of readers on other hosts, at most. */
    private static final long LOOK_NANOS = 200_000_000L;
    /**
     * How far above the newest revision it found a writer that takes over starts, at least: more
     * revisions than an earlier writer can have committed unseen (metas a failover lost). A random
     * part up to as much again keeps apart two writers that found the same newest revision.
     */
    private static final long SESSION_GAP = 1L << 32;

    private final SharedPages remote;
    private final PageStore pages;
    private final Publisher publisher;
    private final Health health;
    private final SolePeers local;
    /**
     * Revisions published and then replaced, with when (nanoTime): readers elsewhere may hold them.
     * Filled where the durable revision moves (the writer and the checkpointer), read by the writer.
     */
    private final LongArrayList replaced = new LongArrayList();
    /** The revision this writer opened at while a sweep of pages left behind is still to do, else -1. */
    private long sweepBelow = -1;
    /** When this writer opened an existing store (nanoTime), or 0. */
    private long openedNanos;
    /** Whether a look at the readers elsewhere found none that can reach the pages to sweep. */
    private boolean sweepReady;
    /** Set at close: a fresh look lets go of everything it can. */
    private boolean closing;
    /** Whether this writer opened a store an earlier writer wrote (and not one it created). */
    private boolean tookOver;

    RemoteWriterPeers(SharedPages remote, PageStore pages, Publisher publisher, Health health, SolePeers local) {
        this.remote = remote;
        this.pages = pages;
        this.publisher = publisher;
        this.health = health;
        this.local = local;
    }

    @Override
    public void opened(WriterState w, boolean created) {
        tookOver = !created;
        if (!created) {
            sweepBelow = publisher.latest().revision;
            openedNanos = System.nanoTime();
        }
    }

    /**
     * {@code newest} + {@link #SESSION_GAP} + a random 32-bit number for a writer that took over: an
     * earlier writer still sending pages (it stalled past its lease) writes them at revisions from
     * the newest it knew on, which is at most a few above {@code newest}. A new store needs none:
     * its random store id seeds the checksum every page sent carries.
     */
    @Override
    public long sessionRevision(long newest) {
        if (!tookOver) {
            return -1;
        }
        if (newest > Long.MAX_VALUE - 2 * SESSION_GAP) {
            throw new StorageException(pages.describe() + " is at revision " + newest
                    + ", which leaves no room for the revisions of another writer session");
        }
        return newest + SESSION_GAP + (new SecureRandom().nextInt() & 0xffff_ffffL);
    }

    @Override
    public Revision newest() {
        return local.newest();
    }

    @Override
    public Revision hold(int slot) {
        return local.hold(slot);
    }

    @Override
    public void release(int slot) {
        local.release(slot);
    }

    /** Held until readers elsewhere have surely registered it (see {@link #addHeld}). */
    @Override
    public void replaced(long previous) {
        synchronized (replaced) {
            replaced.addLong(previous);
            replaced.addLong(System.nanoTime());
        }
    }

    /**
     * Revisions readers on other hosts may hold: the ones they registered, and each revision
     * published and since replaced until a look that began after the replacement found no reader
     * between reading a meta and registering it (see {@link SharedPages}).
     */
    @Override
    public void addHeld(Holders held) {
        // At close, a fresh look lets go of everything it can; else one look per period at most.
        SharedPages.Held look = remote.heldElsewhere(closing ? 0 : LOOK_NANOS);
        synchronized (replaced) {
            int kept = 0;
            for (int i = 0; i < replaced.size(); i += 2) {
                long revision = replaced.getLong(i);
                long at = replaced.getLong(i + 1);
                if (look.someoneReading() || look.lookedAtNanos() - at <= 0) {
                    replaced.setLong(kept++, revision);
                    replaced.setLong(kept++, at);
                    held.add(revision);
                }
            }
            while (replaced.size() > kept) {
                replaced.removeAt(replaced.size() - 1);
            }
        }
        for (long revision : look.revisions()) {
            held.add(revision);
        }
        if (tookOver && look.lookedAtNanos() - openedNanos <= 0) {
            // Readers elsewhere may hold any older revision until a look begun after the open.
            held.someUnknown();
        }
        // Pages free when this writer opened may be swept once no reader elsewhere can reach them:
        // none registered below that revision, and none between a meta and its registration, in a
        // look begun after the open.
        if (sweepBelow >= 0 && look.lookedAtNanos() - openedNanos > 0 && !look.someoneReading()
                && (look.revisions().length == 0 || look.revisions()[0] >= sweepBelow)) {
            sweepReady = true;
        }
    }

    @Override
    public void cleanStep(WriterState w) {
        if (sweepReady) {
            sweepStep(w.space);
        }
    }

    /** Lets go of the freed pages no reader holds any more, and finishes the sweep unless Redis fails it. */
    @Override
    public void closing(WriterState w, Runnable releaseFreed) {
        closing = true;
        releaseFreed.run();
        while (sweepReady && sweepStep(w.space)) {
            // Each step deletes a batch.
        }
        health.sync(pages::sync);
    }

    /**
     * One step of the sweep of pages earlier writers left in shared storage: those no revision
     * reaches (gone from the free space of this writer, which began with every page not in use).
     * Returns false if the step failed.
     */
    private boolean sweepStep(FreeSpace space) {
        if (health.damage() != null) {
            // The pages to delete are those the loaded free map calls discarded, which damage may include.
            return false;
        }
        try {
            if (remote.sweep(space.discarded::get)) {
                sweepBelow = -1;
                sweepReady = false;
            }
            return true;
        } catch (StorageException e) {
            // Only cleaning: the sweep starts again at a later step.
            return false;
        }
    }
}
