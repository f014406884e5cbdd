// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/** When a commit is durable. */
public enum Durability {
    /**
     * {@code commit()} returns once the revision survives a power cut: one fdatasync per commit.
     * The commit's pages carry checksums, so a meta that reached the disk before its pages is
     * recognised after a crash and the store opens at the previous commit.
     */
    SYNC,
    /**
     * Commits make no system call (but one positional write per large value, which is stored off
     * the mapping to spare a page fault per page); a background checkpoint makes them durable every
     * {@link StoreOptions#checkpointInterval()} or {@link StoreOptions#checkpointBytes()}, and on
     * {@link Store#sync()} and close. A killed process loses nothing committed; a power cut loses at
     * most the commits after the last checkpoint, and never corrupts the store: pages a durable
     * revision can reach are not reused until a newer revision is durable.
     */
    NORMAL
}
