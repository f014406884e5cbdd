// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

/**
 * Receives subtrees that an edit cut off without visiting them (a range deletion, a dropped tree).
 * Their pages stay in use until they are reclaimed a few at a time ({@link TreeEditor#reclaimStep}),
 * so no single commit walks millions of pages.
 */
public interface Detached {
    /**
     * A subtree whose root is page {@code pageNo}, written at {@code revision}, at {@code level}
     * (0: a leaf); {@code inlineOnly} if it is known to hold no overflow value.
     */
    void detach(long pageNo, long revision, int level, boolean inlineOnly);
}
