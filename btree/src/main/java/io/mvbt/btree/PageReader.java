// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

/**
 * How the tree reaches pages. Every pointer in the tree names a page and the revision that wrote
 * it; the reader checks both (and the type, structure and checksum) before a page is first used,
 * so a stale, misplaced or damaged page is reported instead of being trusted.
 */
public interface PageReader {
    /** Page size in bytes. */
    int pageSize();

    /**
     * Memory address of page {@code pageNo}, reached through a pointer that says it was written at
     * {@code revision} and has type {@code type} (a {@link PageHeader} type). Throws
     * {@link io.mvbt.CorruptionException} naming the page if it is not so.
     */
    long page(long pageNo, long revision, int type);

    /** Whether {@link #prefetch} is worth calling: the pages come from afar (a remote store). */
    default boolean prefetches() {
        return false;
    }

    /** Hints that the first {@code count} of {@code pageNos} will be read soon, so that they can be fetched together. */
    default void prefetch(long[] pageNos, int count) {
        // Pages in memory or a mapped file need no fetching.
    }
}
