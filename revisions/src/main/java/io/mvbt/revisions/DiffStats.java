// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * What a diff did, to tell what it cost: a diff of revisions that share most of their pages reads
 * few of them.
 *
 * @param changes keys reported (added, removed or changed), plus one per created or dropped tree
 * @param pagesRead pages read: tree pages below the roots, each run of an overflow value whose bytes
 *     were compared or handed out, and the catalog's pages when every tree is compared
 * @param subtreesSkipped subtrees both revisions share, stepped over without being read
 * @param overflowValuesCompared values whose overflow pages differ and whose bytes were compared
 */
public record DiffStats(long changes, long pagesRead, long subtreesSkipped, long overflowValuesCompared) {
    DiffStats plus(DiffStats o) {
        return new DiffStats(changes + o.changes, pagesRead + o.pagesRead, subtreesSkipped + o.subtreesSkipped,
                overflowValuesCompared + o.overflowValuesCompared);
    }
}
