// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore;

/**
 * Pages kept elsewhere (on Redis, say) and held here in a bounded local copy: written pages are
 * sent at a sync, page numbers are never reused (readers elsewhere may cache a page under its
 * number), and freed pages are deleted once nothing can reach them.
 */
public interface RemotePageStore extends PageStore {
    /** What the store above must do about the processes on other hosts that share the pages. */
    SharedPages shared();

    /** Fetches the first {@code count} of {@code pageNos} that are not here yet, together (a hint). */
    void prefetch(long[] pageNos, int count);

    /**
     * Takes note of everything written so far and returns the action that sends it, to run later,
     * outside the caller's locks: pages are copied now (a page changed after this call does not
     * arrive torn), and sends run in the order of their calls.
     */
    Runnable prepareSync();

    /**
     * Like {@link #prepareSync()} for the pages written so far but not the meta slots: the bulk of a
     * checkpoint goes ahead, outside the caller's locks, so that the {@code prepareSync} under them
     * copies little. The caller guarantees that no page written so far changes meanwhile.
     */
    Runnable preparePages();

    /**
     * A run is gone for good: no revision that is held or durable can reach it, so its pages may
     * be deleted.
     */
    void discard(long pageNo, int pages);
}
