// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;

import io.mvbt.CorruptionException;
import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.SharedPages;

/**
 * A read-only store on shared storage, beside a writer on another host (see {@link Peers} and
 * {@link SharedPages}): it fetches the metas that writer published, and registers the revisions
 * its snapshots hold where the writer looks, before a snapshot reads any page.
 */
final class RemoteReaderPeers implements Peers {
    private static final System.Logger LOG = System.getLogger("io.mvbt.readers");

    private final SharedPages remote;
    private final PageStore pages;
    private final ReaderRegistry registry;
    private final ReaderSlots slots;
    private final Checksums checksums;
    private final Publisher publisher;
    private final Adoption adoption;
    /** Tree handles known so far: a followed revision gets room to cache their roots. */
    private final IntSupplier treeCount;
    /** Serializes fetches and reads of the meta slots, and the registrations. */
    private final Object followLock = new Object();
    /** Scratch for the revisions this process's snapshots hold (under {@link #followLock}). */
    private long[] held = new long[0];
    /** The sequence of the newest meta followed, and its revision. */
    private volatile Followed followed;

    private record Followed(long sequence, Revision revision) {
    }

    RemoteReaderPeers(SharedPages remote, PageStore pages, ReaderRegistry registry, ReaderSlots slots,
            Checksums checksums, Publisher publisher, Adoption adoption, IntSupplier treeCount) {
        this.remote = remote;
        this.pages = pages;
        this.registry = registry;
        this.slots = slots;
        this.checksums = checksums;
        this.publisher = publisher;
        this.adoption = adoption;
        this.treeCount = treeCount;
    }

    @Override
    public boolean readOnly() {
        return true;
    }

    @Override
    public void open(Runnable openAsWriter) {
        newest();
    }

    @Override
    public void opened(WriterState w, boolean created) {
        String where = pages.describe();
        remote.onLapse(revisions -> expireLapsed(where, revisions));
    }

    @Override
    public Revision newest() {
        return follow(false);
    }

    /**
     * The newest meta the writer published, fetched (only if it changed) and read by one thread at
     * a time; {@code forSnapshot} marks the reader as reading until the snapshot's registration.
     */
    private Revision follow(boolean forSnapshot) {
        synchronized (followLock) {
            remote.refreshMeta(forSnapshot);
            List<MetaPage.Record> metas = Recovery.readAll(pages, checksums);
            if (metas.isEmpty()) {
                throw new CorruptionException(-1, "no valid meta in " + pages.describe());
            }
            // Its writer sends a meta only after every page it reaches, so the newest is whole.
            MetaPage.Record m = metas.get(0);
            publisher.storeId(m.storeId);
            Followed f = followed;
            if (f != null && f.sequence == m.sequence) {
                return f.revision;
            }
            Revision r = adoption.followed(m, treeCount.getAsInt());
            followed = new Followed(m.sequence, r);
            publisher.follow(r);
            return r;
        }
    }

    /** The newest published revision, registered where the writer looks; read again if the reading mark lapsed. */
    @Override
    public Revision hold(int slot) {
        synchronized (followLock) {
            while (true) {
                Revision r = follow(true);
                registry.hold(slot, r);
                // A lapse found before (reading the meta, or a failed try) may have expired the slot
                // with the others; one found from here on fails the hold below, or comes after it.
                registry.unexpire(slot);
                if (tellHeld(true)) {
                    return r;
                }
            }
        }
    }

    /** Under the lock of snapshot opens: a list collected before an open and told after it would drop its revision. */
    @Override
    public void release(int slot) {
        synchronized (followLock) {
            slots.release(slot);
            tellHeld(false);
        }
    }

    /** Tells the revisions this process's snapshots hold to the writer (see {@link SharedPages#hold}). */
    private boolean tellHeld(boolean mustReach) {
        if (held.length < registry.capacity()) {
            held = new long[registry.capacity()];
        }
        return remote.hold(held, registry.collect(held), mustReach);
    }

    /**
     * The registration of this reader's snapshots lapsed, so the writer may have freed the pages of
     * {@code revisions}: their snapshots expire (their next read throws) instead of meeting pages
     * the writer freed.
     */
    private void expireLapsed(String where, long[] revisions) {
        int expired = registry.expireSnapshotsOf(revisions);
        if (expired > 0) {
            LOG.log(System.Logger.Level.WARNING, "the registration of the snapshots of " + where
                    + " lapsed (this reader stalled past its lease, or could not reach the store to renew it); "
                    + expired + " snapshot(s) of revisions " + Arrays.toString(revisions) + " expired");
        }
    }
}
