// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

/**
 * The page context of a write transaction: reads like a {@link PageReader}, and allocates and frees
 * pages. Pages allocated in the running transaction carry its {@link #revision()} and may be written
 * in place; every other page is copied before it changes.
 */
public interface PageWriter extends PageReader {
    /** Revision the running transaction will publish; pages written by it carry this number. */
    long revision();

    /**
     * Allocates a run of {@code pages} contiguous pages (at most {@link #maxRunPages()}) and returns
     * the first page number. The memory is writable at {@link #address}; its content is undefined.
     */
    long allocate(int pages);

    /** Largest run {@link #allocate} accepts. */
    int maxRunPages();

    /** Memory address of a page allocated by the running transaction. */
    long address(long pageNo);

    /** Frees a run that the running or an earlier revision wrote at {@code revision}. */
    void free(long pageNo, long revision, int pages);

    /**
     * Scratch memory of at least {@code bytes} in which a run of pages is built before
     * {@link #writeRun}; valid until the next call.
     */
    long runScratch(int bytes);

    /**
     * Checksums the run of {@code pages} pages built in {@link #runScratch} and stores it at page
     * {@code pageNo} (allocated by this transaction). Runs never change again (overflow values).
     */
    void writeRun(long pageNo, int pages);
}
