// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * Shape of one tree in one revision.
 *
 * @param fill used bytes of leaf pages over their capacity, 0 to 1
 */
public record TreeStats(String name, long entries, int depth, long branchPages, long leafPages, long overflowPages,
        double fill) {
}
