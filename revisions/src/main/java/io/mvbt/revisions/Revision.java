// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.btree.TreeRoot;

/**
 * One published revision: everything a snapshot needs, immutable. {@code roots} caches the roots of
 * trees by {@link Tree#id()}, filled lazily from the fresh roots and the catalog by whichever
 * reader asks first (racing readers store equal, immutable values).
 */
final class Revision {
    /** Marks a tree the revision does not have. */
    static final TreeRoot ABSENT = new TreeRoot();

    final long revision;
    /** Revision whose pages were durable when this one was committed. */
    final long durableRevision;
    final TreeRoot catalog;
    /** Roots newer than the catalog's entries for them. */
    final FreshRoots fresh;
    final long pageCount;
    final long commitMillis;
    final long freeMapRoot;
    final long freeMapRevision;
    final int freeMapHeight;
    final TreeRoot[] roots;
    /**
     * Revision through which every page this one reaches carries a checksum: its own if a SYNC
     * commit sealed it, else the durable one (see {@link PageAccess}); -1 where no bound is kept.
     */
    final long sealedThrough;
    /** The page reader for this revision's bound, made on first use. */
    private volatile PageAccess reader;

    Revision(long revision, long durableRevision, TreeRoot catalog, FreshRoots fresh, long pageCount, long commitMillis,
            long freeMapRoot, long freeMapRevision, int freeMapHeight, TreeRoot[] roots) {
        this(revision, durableRevision, catalog, fresh, pageCount, commitMillis, freeMapRoot, freeMapRevision,
                freeMapHeight, roots, -1);
    }

    private Revision(long revision, long durableRevision, TreeRoot catalog, FreshRoots fresh, long pageCount,
            long commitMillis, long freeMapRoot, long freeMapRevision, int freeMapHeight, TreeRoot[] roots,
            long sealedThrough) {
        this.revision = revision;
        this.durableRevision = durableRevision;
        this.catalog = catalog;
        this.fresh = fresh;
        this.pageCount = pageCount;
        this.commitMillis = commitMillis;
        this.freeMapRoot = freeMapRoot;
        this.freeMapRevision = freeMapRevision;
        this.freeMapHeight = freeMapHeight;
        this.roots = roots;
        this.sealedThrough = sealedThrough;
    }

    /** This revision with pages sealed through {@code bound} (before it is published). */
    Revision sealedThrough(long bound) {
        return new Revision(revision, durableRevision, catalog, fresh, pageCount, commitMillis, freeMapRoot,
                freeMapRevision, freeMapHeight, roots, bound);
    }

    /** Reads this revision's pages through {@code access}, with this revision's seal bound. */
    PageAccess reader(PageAccess access) {
        PageAccess r = reader;
        if (r == null) {
            r = access.through(sealedThrough);
            reader = r;
        }
        return r;
    }
}
