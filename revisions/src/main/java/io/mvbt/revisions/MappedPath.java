// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.pagestore.PageStore;

/**
 * The writer stores its pages into the store's memory (a file's mapping, or memory) where they
 * stay; a checkpoint seals them there and syncs the file, then syncs the steady meta it prepared as
 * it started ({@link #steadiesFirstPass}). With a {@link Prefaulter}, the write
 * faults of the pages the writer takes after a checkpoint are taken ahead of it.
 */
class MappedPath implements PagePath {
    private final PageStore pages;
    private final Publisher publisher;
    private final ReaderRegistry registry;
    private final Health health;
    /** Takes the writer's write faults ahead of it; null where the writer takes its own. */
    private final Prefaulter prefaulter;
    private boolean prefaulting;

    MappedPath(PageStore pages, Publisher publisher, ReaderRegistry registry, Health health, Prefaulter prefaulter) {
        this.pages = pages;
        this.publisher = publisher;
        this.registry = registry;
        this.health = health;
        this.prefaulter = prefaulter;
    }

    @Override
    public final boolean reusesPages() {
        return true;
    }

    @Override
    public boolean sealsBesideCheckpoint() {
        return true;
    }

    @Override
    public void seal(PageAccess sealer, Revision r, long since) {
        RevisionWalker.seal(sealer, r, since, RevisionWalker.NO_WRITEBACK);
    }

    @Override
    public void flush() {
        pages.sync();
    }

    /**
     * A checkpoint makes durable the revision its pass sealed, not the newest: the newest's last
     * pages would have to be synced while the writer waits (up to 534 ms per commit at 1M entries),
     * or beside a writer that stores into the mapping, which faults on every page the sync cleans
     * and makes the sync chase what it dirties (15-25% of the commit rate at 1M random keys).
     */
    @Override
    public boolean steadiesFirstPass() {
        return true;
    }

    /**
     * For a subclass that does not steady its first pass: under the meta lock the newest revision h
     * is taken and held, h's last pages (the commits made during the first pass) are synced with the
     * writer stopped, and a steady copy of its meta prepared; the copy is written and synced outside it.
     */
    @Override
    public long steady(int slot, PageAccess sealer, long sealed) {
        return steady(this, slot, sealer, sealed, false);
    }

    /**
     * The end of a checkpoint of a file whose last pages {@code path} seals; they are synced outside
     * the meta lock if {@code lastPagesBesideWriter} (the writer does not store into the mapping).
     */
    final long steady(PagePath path, int slot, PageAccess sealer, long sealed, boolean lastPagesBesideWriter) {
        Revision h;
        Publisher.SteadyCopy copy;
        publisher.lock();
        try {
            h = publisher.latest();
            // From here h is what becomes durable: its pages must not be reused by commits before
            // the last sync, though it is not durable yet.
            registry.hold(slot, h);
            if (!lastPagesBesideWriter) {
                syncLastPages(path, sealer, h, sealed);
            }
            copy = publisher.prepareSteadyCopy(h);
        } finally {
            publisher.unlock();
        }
        if (lastPagesBesideWriter) {
            syncLastPages(path, sealer, h, sealed);
        }
        health.sync(() -> {
            publisher.writeSteadyCopy(copy);
            pages.sync();
        });
        publisher.lock();
        try {
            // Unless a SYNC commit made a newer revision durable while the meta was synced.
            return publisher.steadyCopySynced(copy);
        } finally {
            publisher.unlock();
        }
    }

    /** Seals and syncs the pages of h written after {@code sealed} (none if h is what was sealed). */
    private void syncLastPages(PagePath path, PageAccess sealer, Revision h, long sealed) {
        if (h.revision != sealed) {
            path.seal(sealer, h, sealed);
            health.sync(pages::sync);
        }
    }

    @Override
    public void start(FreeSpace space) {
        if (prefaulter != null) {
            prefaulting = true;
            space.reportUseTo(prefaulter);
            prefaulter.start();
        }
    }

    @Override
    public void stop() {
        if (prefaulting) {
            prefaulter.stop();
        }
    }

    /**
     * Has the prefaulter touch the pages the writer will allocate next, keeping just ahead of the
     * writer (after the pages the checkpoint let go are reusable).
     */
    @Override
    public void prepareUpcoming(FreeSpace space, long maxPages) {
        if (!prefaulting) {
            return;
        }
        int n = (int) Math.min(maxPages, space.lastWindowPages());
        long[] upcoming = new long[n];
        // Even empty: the writer's count of pages taken starts again, so the old job must go.
        prefaulter.touchAhead(upcoming, n > 0 ? space.upcoming(upcoming) : 0);
    }

    @Override
    public long pagesPrepared() {
        return prefaulting ? prefaulter.touched() : 0;
    }
}
