// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import org.agrona.DirectBuffer;

/**
 * Receives what changed between two revisions (see {@link Snapshot#diff(Snapshot, DiffVisitor)}),
 * tree by tree in name order and, within a tree, key by key in key order.
 *
 * <p>Keys and values are views of page memory (or of a copy, for a value spread over several
 * overflow runs) that are valid only until the call returns: copy what you keep (in the checked
 * mode, a view read after its call throws {@link IndexOutOfBoundsException}). A visitor that throws
 * ends the diff; the exception reaches the caller.
 */
public interface DiffVisitor {
    /**
     * A tree that the first revision lacks and the second has. Its entries follow, each reported
     * as added, so that a replica that creates the tree and applies them holds what the second
     * revision holds.
     */
    default void treeCreated(String tree) {
    }

    /**
     * A tree that the first revision has and the second lacks. Its keys are not reported one by
     * one: a replica drops the tree (which deleting every key would not do), and the diff reads none
     * of its pages. {@code entries} is how many it held.
     */
    default void treeDropped(String tree, long entries) {
    }

    /**
     * One key whose presence or value differs: {@code oldValue} is null if the key was added,
     * {@code newValue} null if it was removed (by a delete, a range delete or an overwrite with
     * a bulk load); both are set if the value changed. Equal values are never reported.
     */
    void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue);
}
