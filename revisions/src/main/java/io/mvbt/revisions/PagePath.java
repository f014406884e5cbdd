// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * How the writer's pages reach storage; one class per path, chosen once by the {@code Store.open}
 * factory: through the file's mapping ({@link MappedPath}), built in private memory and written at
 * commit ({@link PrivatePath}), held in a shadow until their checkpoint ({@link ShadowPath}), or
 * sent to a remote store ({@link SentPath}). Each owns where a page the writer allocates lives
 * until it is durable, how a checkpoint or a SYNC commit seals and flushes those pages, and how a
 * checkpoint ends with a steady meta. {@link Checkpoints} runs the one algorithm over it.
 *
 * <p>The writer's side ({@link #begin} to {@link #published}) runs on the writer's thread alone.
 */
interface PagePath {
    // ------------------------------------------------------------------ the writer's side

    /** A write transaction begins. */
    default void begin() {
    }

    /** The transaction writing {@code revision} allocated {@code pages} pages from {@code pageNo}. */
    default void allocated(long pageNo, int pages, long revision) {
    }

    /** The address of a page this transaction built away from the store's memory, or 0. */
    default long builtAddress(long pageNo) {
        return 0;
    }

    /** The transaction writes the run at {@code pageNo} into storage itself (an overflow value). */
    default void writingRun(long pageNo, int pages) {
    }

    /** At commit, before anything reads storage: writes what the transaction built away from it. */
    default void writeBuilt() {
    }

    /**
     * The writer published {@code revision} ({@code durable} the durable revision, {@code oldestReader}
     * the oldest one a reader holds, or -1): what held pages for older revisions may go.
     */
    default void published(long durable, long revision, long oldestReader) {
    }

    /** Whether the writer's pages fill what holds them: a checkpoint is due now. */
    default boolean checkpointDue() {
        return false;
    }

    // ------------------------------------------------------------------ checkpoints

    /** Whether freed page numbers are written again (a file, memory); sent ones never are. */
    boolean reusesPages();

    /**
     * Whether a SYNC commit may seal beside a checkpoint's first pass; else it waits for the
     * checkpoint lock, as a page copied (to a shadow's file or the wire) while sealed would arrive torn.
     */
    boolean sealsBesideCheckpoint();

    /** Seals {@code r}'s pages written after {@code since}, bringing them where a flush writes them. */
    void seal(PageAccess sealer, Revision r, long since);

    /** Makes what the seals so far brought durable, except the meta (run under {@link Health#sync}). */
    void flush();

    /** Whether a checkpoint's first pass is followed by a second one for the commits made meanwhile. */
    default boolean passesTwice() {
        return false;
    }

    /**
     * Whether a checkpoint makes durable the revision its one pass seals, with a steady meta
     * prepared as it starts, rather than the newest at its end ({@link #steady} is then not used):
     * no commit waits for the checkpoint's syncs.
     */
    default boolean steadiesFirstPass() {
        return false;
    }

    /**
     * The end of a checkpoint whose passes sealed through revision {@code sealed}: the newest
     * revision is held in {@code slot}, its last pages sealed and flushed, and a steady copy of its
     * meta made durable. Returns the durable revision it replaced, or -1 if a SYNC commit made a
     * newer one durable meanwhile.
     */
    long steady(int slot, PageAccess sealer, long sealed);

    // ------------------------------------------------------------------ lifecycle

    /** The store opened as a writer and recovered (its open's checkpoint is done). */
    default void recovered() {
    }

    /** The store is open: the path sets up what holds the writer's pages from now on. */
    default void opened() {
    }

    /** Starts the path's background work (a durable store open for writing), told of the writer's use of {@code space}. */
    default void start(FreeSpace space) {
    }

    /** Stops the path's background work, waiting for the round it is in. */
    default void stop() {
    }

    /**
     * After a checkpoint, the writer's next pages of {@code space} (as many as the last window
     * took, at most {@code maxPages}) may be made ready ahead of it; holding the writer.
     */
    default void prepareUpcoming(FreeSpace space, long maxPages) {
    }

    /** Pages made ready ahead of the writer since the store opened. */
    default long pagesPrepared() {
        return 0;
    }

    /** The store closes: {@code checkpointed} if its last checkpoint made every commit durable. */
    default void closed(boolean checkpointed) {
    }
}
