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

    Revision(long revision, long durableRevision, TreeRoot catalog, FreshRoots fresh, long pageCount, long commitMillis,
            long freeMapRoot, long freeMapRevision, int freeMapHeight, TreeRoot[] roots) {
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
    }
}
