// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import io.mvbt.MvbtException;
import io.mvbt.revisions.Tree;

/**
 * A candidate id has no entry in the master tree of the same revision: an index and the master tree
 * disagree, which a writer that updates both in one transaction never causes. Never expected; it
 * names the id, tree and revision so that it can be found.
 */
public class MissingEntryException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public MissingEntryException(long id, Tree master, long revision) {
        super("candidate id " + id + " has no entry in master tree '" + master.name() + "' at revision " + revision);
    }
}
