// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.util.Arrays;
import java.util.List;

import org.agrona.DirectBuffer;

import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;

/**
 * What a dump holds: the trees (every tree, or the one named) and the keys of each from
 * {@code from} (inclusive) to {@code to} (exclusive), either bound open when null, as the
 * library's ranges take them.
 */
record DumpSelection(String tree, byte[] from, byte[] to) {
    static final DumpSelection ALL = new DumpSelection(null, null, null);

    /** The names of the trees to dump, in the snapshot's order; a tree that is not there is a "not found". */
    List<String> trees(Store store, Snapshot snapshot) {
        if (tree == null) {
            return snapshot.treeNames();
        }
        if (!snapshot.hasTree(store.tree(tree))) {
            throw new CommandException(ExitCodes.NOT_FOUND, "there is no tree '" + tree + "' (mvbt ls lists them)");
        }
        return List.of(tree);
    }

    /** Entries of {@code tree} in the range, counted in O(log n). */
    long count(Snapshot snapshot, Tree tree) {
        long total = snapshot.count(tree);
        long below = from == null ? 0 : snapshot.rank(tree, from, false);
        long upTo = to == null ? total : snapshot.rank(tree, to, false);
        return Math.max(0, upTo - below);
    }

    /** Puts {@code cursor} on the range's first entry; false if the range is empty. */
    boolean first(Cursor cursor) {
        return (from == null ? cursor.first() : cursor.seek(from)) && inRange(cursor.key());
    }

    /** Moves {@code cursor} to the range's next entry; false past its end. */
    boolean next(Cursor cursor) {
        return cursor.next() && inRange(cursor.key());
    }

    private boolean inRange(DirectBuffer key) {
        if (to == null) {
            return true;
        }
        byte[] bytes = new byte[key.capacity()];
        key.getBytes(0, bytes);
        return Arrays.compareUnsigned(bytes, to) < 0;
    }
}
