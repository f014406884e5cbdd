// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.List;

import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.PageStore;

/**
 * Takes on the state a store's metas describe: the revision a meta names, and for a writer the
 * newest trusted meta with its meta slots, free map, free space and named revisions (at open, and
 * at each turn of writers that take turns). Remembers the newer revisions recovery had to drop.
 */
final class Adoption {
    private final PageStore pages;
    private final Writeback writeback;
    private final Checksums checksums;
    private final PageAccess access;
    private final Publisher publisher;
    private final Health health;
    /** The shadows of a store file's writer, or null; and the writer's pages held in one, or null. */
    private final Shadows shadows;
    private final DirtyPages dirty;
    /** The revisions kept under names, which the writer holds. */
    private final NamedRevisions named;
    /** Newer revisions that recovery found incomplete or damaged and did not open at. */
    private volatile List<String> dropped = List.of();

    Adoption(PageStore pages, Writeback writeback, Checksums checksums, PageAccess access, Publisher publisher,
            Health health, Shadows shadows, DirtyPages dirty, NamedRevisions named) {
        this.pages = pages;
        this.writeback = writeback;
        this.checksums = checksums;
        this.access = access;
        this.publisher = publisher;
        this.health = health;
        this.shadows = shadows;
        this.dirty = dirty;
        this.named = named;
    }

    /**
     * Loads the newest meta that can be trusted: the meta slots, the writer's free map and free
     * space ({@code w}, which the writer permit gave) and the newest revision. Newer metas that were
     * rejected are wiped first, so that no later recovery weighs them and no meta written from now on
     * lands in a slot that is wiped afterwards.
     */
    MetaPage.Record adopt(WriterState w) {
        return adopt(w, m -> { });
    }

    /**
     * {@link #adopt()}, showing {@code beforeWriting} the meta chosen before anything is written: it
     * may refuse the open by throwing, and the file is then as it was.
     */
    MetaPage.Record adopt(WriterState w, java.util.function.Consumer<MetaPage.Record> beforeWriting) {
        List<MetaPage.Record> metas = Recovery.readAll(pages, checksums);
        if (!metas.isEmpty()) {
            publisher.storeId(metas.get(0).storeId);
        }
        if (shadows != null) {
            shadows.recover(metas, dirty);
        }
        Recovery.Choice choice = Recovery.choose(pages, metas, access, shadows);
        MetaPage.Record m = choice.meta();
        if (!choice.dropped().isEmpty()) {
            dropped = choice.dropped();
            System.getLogger("io.mvbt.recovery").log(System.Logger.Level.WARNING, pages.describe()
                    + " opened at revision " + m.revision + "; newer revisions were dropped: "
                    + String.join("; ", dropped));
        }
        beforeWriting.accept(m);
        Revision opened = revisionOf(m, 0);
        if (publisher.adopt(metas, m, opened)) {
            health.sync(pages::sync);
        }
        PageAccess loader = (m.steady() ? access : access.withTrustUnsealed()).through(opened.sealedThrough);
        w.freeMap.set(m.freeRoot, m.freeRevision, m.freeHeight);
        w.freeMap.load(loader, w.space, m.pageCount);
        for (long flip : m.flips) {
            w.space.loadFlip(flip, m.pageCount);
        }
        w.space.loaded();
        named.load(opened, loader);
        return m;
    }

    /** The meta recovery would open at, for a reader that has no usable announcement. */
    MetaPage.Record recoveredMeta() {
        List<MetaPage.Record> metas = Recovery.readAll(pages, checksums);
        if (!metas.isEmpty()) {
            publisher.storeId(metas.get(0).storeId);
        }
        if (shadows != null && !metas.isEmpty()) {
            shadows.follow(metas.get(0));
        }
        Recovery.Choice choice = Recovery.choose(pages, metas, access.uncached(), shadows);
        dropped = choice.dropped();
        return choice.meta();
    }

    /** See {@link Store#droppedRevisions}. */
    List<String> dropped() {
        return dropped;
    }

    /** The revision a meta names, with {@code rootSlots} slots for cached roots. */
    Revision revisionOf(MetaPage.Record m, int rootSlots) {
        return new Revision(m.revision, m.durableRevision, m.catalog.copy(), m.fresh, m.pageCount, m.commitMillis,
                m.freeRoot, m.freeRevision, m.freeHeight, new TreeRoot[rootSlots])
                .sealedThrough(bound(Recovery.sealedThrough(m)));
    }

    /**
     * The revision a follower reads from a meta another process published, with room to cache the
     * roots of the {@code treesKnown} trees this store has handles for and of some made later.
     */
    Revision followed(MetaPage.Record m, int treesKnown) {
        Shadows.checkNamed(shadows, m, pages.describe());
        if (shadows != null) {
            shadows.follow(m);
        }
        return revisionOf(m, Math.max(16, treesKnown + 16));
    }

    /**
     * The revision through which pages must carry a checksum, as this store can promise it (see
     * {@link PageAccess}). A store that never reuses page numbers (a remote one) keeps no bound:
     * its readers may hold copies of pages fetched before a checkpoint sealed them.
     */
    long bound(long sealedThrough) {
        return writeback.reusesPages() ? sealedThrough : -1;
    }
}
