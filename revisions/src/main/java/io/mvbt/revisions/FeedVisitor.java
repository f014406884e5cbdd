// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * Receives one batch of a {@link ChangeFeed}: the changes from the feed's position to a newer
 * revision, as a {@link DiffVisitor} does, then {@link #reached} before the position moves.
 */
public interface FeedVisitor extends DiffVisitor {
    /**
     * Every change from revision {@code from} to revision {@code to} was reported. Make what you did
     * with them durable before returning: when this returns, the feed's position moves to {@code to}
     * and the pages only {@code from} held may be reused. If this (or a change before it) throws, or
     * the process dies first, the position stays at {@code from} and the next poll reports the same
     * batch, from {@code from} to {@code to}, again.
     *
     * @param from the feed's position, or {@link ChangeFeed#BEGINNING} for a feed's first batch
     */
    default void reached(long from, long to) {
    }
}
