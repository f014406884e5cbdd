// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore;

import io.mvbt.StorageException;

/**
 * What a page store shared with processes on other hosts tells the store above it (a file shares
 * through its lock file instead). A read-only follower fetches the metas its writer published and
 * registers the revisions its snapshots hold; the writer learns which revisions those readers hold.
 *
 * <p>Registration races with the writer: a reader reads a meta, then registers its revision. So a
 * reader marks itself as reading in the same atomic step that reads the meta ({@link #refreshMeta}),
 * and its registration ({@link #hold}) ends the mark. The writer keeps holding a revision it
 * published after a newer one replaced it, until a look at the registrations that began after the
 * replacement finds no reader marked: every reader that read the old revision has registered it
 * by then.
 */
public interface SharedPages {
    /** Whether this process only reads: a writer elsewhere publishes. */
    boolean readOnly();

    /**
     * Reader: copies the newest published meta slots into pages 0 to {@code META_SLOTS - 1}; with
     * {@code forSnapshot}, marks this reader as reading until its next {@link #hold}. Callers
     * serialize the two.
     */
    void refreshMeta(boolean forSnapshot);

    /**
     * Reader: the revisions this process's snapshots hold now, ascending and distinct. With
     * {@code mustReach}, returns once the writer can see them all, and ends the reading mark; false
     * if the mark had lapsed meanwhile (the reader stalled past its lease), and the caller must read
     * the meta again. Without, the change goes out within a refresh period, and it returns true.
     */
    boolean hold(long[] revisions, int count, boolean mustReach);

    /**
     * Reader: {@code lapsed} is called with the revisions this reader had registered when it finds
     * that registration gone (the reader stalled past its lease, or could not reach the store to
     * renew it): the writer may have freed their pages since. It runs on the page store's refresh
     * thread, or inside {@link #refreshMeta} or {@link #hold} on the caller's, under the page store's
     * locks: it must be quick, must not block, and must not call back into this object.
     */
    default void onLapse(java.util.function.Consumer<long[]> lapsed) {
    }

    /** What readers elsewhere hold, as of one look at their registrations. */
    record Held(long[] revisions, boolean someoneReading, long lookedAtNanos) {
    }

    /**
     * Writer: the revisions readers elsewhere hold, ascending and distinct, and whether one was
     * marked as reading, from a look that began at {@link Held#lookedAtNanos()}
     * ({@code System.nanoTime()}); looks again if the last look is older than {@code maxAgeNanos}.
     * If Redis cannot be reached, the last successful look.
     */
    Held heldElsewhere(long maxAgeNanos);

    /**
     * Writer: one step of a sweep that deletes what is stored for pages made before this writer
     * opened that {@code gone} says nothing reaches: pages a writer that died or lost its lease left
     * behind. The caller calls it only once no reader elsewhere can reach them. Returns true when
     * every stored page has been looked at.
     *
     * @throws StorageException if the step failed; the next starts the sweep again
     */
    default boolean sweep(java.util.function.LongPredicate gone) {
        return true;
    }
}
