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

    /** A run written completely and never to change again (overflow): checksum it now. */
    void seal(long pageNo, int pages);
}
