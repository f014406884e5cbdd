// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * A revision kept under a name ({@link Store#retain}, {@link WriteTxn#retain}) until
 * {@link Store#release}: listed by {@link Store#namedRevisions()}.
 *
 * @param name the name it is kept under
 * @param revision its number
 * @param commitMillis when it was committed (epoch milliseconds)
 * @param pinnedPages pages that only it holds: freed since, reached by no other named revision,
 *        snapshot or the durable revision, so a release gives them back; -1 where not known (a
 *        read-only store: the free space is the writer's)
 */
public record NamedRevision(String name, long revision, long commitMillis, long pinnedPages) {
}
