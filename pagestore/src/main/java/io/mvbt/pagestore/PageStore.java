// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore;

import io.mvbt.pagestore.local.FilePageStore;

/**
 * Fixed-size pages addressed by a 64-bit page number, held in memory that can be read and written
 * in place. A page store knows pages, not trees: it does not know which pages are in use.
 *
 * <p>Pages 0 to {@code META_SLOTS - 1} are the meta slots; the layers above decide what they hold.
 * Memory returned by {@link #address} stays valid while the store is reachable, also after the store
 * grows; after {@link #truncate} the pages past the new end must no longer be touched. A store that
 * keeps only some pages in memory (pages elsewhere, a bounded cache) keeps an address valid while
 * a span begun before the lookup ({@link #beginSpan}) is open.
 *
 * <p>This is what moves pages; how a deployment uses them is the store's above. A store whose pages
 * live elsewhere and are sent at a sync is a {@link RemotePageStore}; a file has extras of its own
 * ({@link FilePageStore#prefault}).
 */
public interface PageStore extends AutoCloseable {
    /**
     * Number of meta slots at the start of every store: the last durable meta, a checkpoint being
     * made durable, the newest commit, and the slot the next commit writes.
     */
    int META_SLOTS = 4;

    /** Smallest page size. */
    int MIN_PAGE_SIZE = 4096;

    /** Largest page size. */
    int MAX_PAGE_SIZE = 65536;

    /** Page size in bytes: a power of two from {@link #MIN_PAGE_SIZE} to {@link #MAX_PAGE_SIZE}. */
    int pageSize();

    /** Pages the store holds: page numbers below this are addressable. */
    long pageCount();

    /** Grows the store to {@code newPageCount} pages; new pages read as zero. */
    void extend(long newPageCount);

    /**
     * Grows the store by a run of {@code pages} contiguous pages in one memory range and returns
     * its first page; pages between the old end and the run are new too.
     */
    long appendRun(int pages);

    /**
     * Shrinks the store to {@code newPageCount} pages, which must be a multiple of the growth unit
     * ({@link #roundUpToGrowthUnit}); the caller guarantees that nobody reads the pages past the new end.
     * Drops whatever the store prepared past it (a file's zeros written ahead), even at the current
     * page count.
     */
    void truncate(long newPageCount);

    /** {@code pages} rounded up to the unit in which the store grows and shrinks. */
    long roundUpToGrowthUnit(long pages);

    /**
     * The first page after the contiguous memory range that holds {@code pageNo}: a run of pages
     * from {@code pageNo} is one memory range if it ends at or before this.
     */
    long runEnd(long pageNo);

    /** Longest run of pages the store can give as one memory range (64 MiB). */
    int maxRunPages();

    /** Memory address of page {@code pageNo}, which must be below {@link #pageCount()}. */
    long address(long pageNo);

    /**
     * Memory address of a run of {@code pages} pages from {@code pageNo}, contiguous however this
     * process holds the store in memory: a run that another process placed within one of its own
     * ranges may cross one of this process's ({@link #runEnd}). By default the page's address, for
     * stores whose runs were all placed by this process.
     */
    default long runAddress(long pageNo, int pages) {
        return address(pageNo);
    }

    /**
     * A fresh {@link java.nio.ByteBuffer} view of a run of pages, contiguous as {@link #runAddress}
     * says (for checksums through the JDK's intrinsics); its position is 0 and its limit the run's
     * length.
     */
    java.nio.ByteBuffer buffer(long pageNo, int pages);

    /**
     * Stores the bytes of {@code source} (from its position to its limit) at the start of page
     * {@code pageNo}, a run within one memory range. For a file this is one positional write:
     * unlike a store through the mapping it takes no page fault, which matters for a run of many
     * pages that writeback has cleaned.
     */
    void write(long pageNo, java.nio.ByteBuffer source);

    /**
     * Begins a span in which the caller may keep addresses from {@link #address} (a snapshot, a
     * write turn): a store that evicts pages from memory evicts none looked up while the span is
     * open. Returns the token for {@link #endSpan}.
     */
    default long beginSpan() {
        return 0;
    }

    /** Ends a span begun with {@link #beginSpan}; the addresses looked up in it may go. */
    default void endSpan(long span) {
        // A store that keeps its pages in memory or a mapping never takes an address back.
    }

    /** Tells the store that a run of pages was written in place (remote and fault-injecting stores track it). */
    void written(long pageNo, int pages);

    /** Makes every write so far durable; for a file, one fdatasync. */
    void sync();

    /**
     * Makes page {@code pageNo} as written so far durable, and no other write necessarily (a meta
     * slot whose pages an earlier {@link #sync()} made durable); for a mapped file, an msync of
     * that page. By default a whole {@link #sync()}.
     */
    default void syncPage(long pageNo) {
        sync();
    }

    /** Whether {@link #sync()} makes writes survive a power cut (false for memory). */
    boolean durable();

    /** Where the pages live, for messages. */
    String describe();

    @Override
    void close();

    /** Whether {@code pageSize} is a supported page size. */
    static boolean validPageSize(int pageSize) {
        return pageSize >= MIN_PAGE_SIZE && pageSize <= MAX_PAGE_SIZE && Integer.bitCount(pageSize) == 1;
    }
}
