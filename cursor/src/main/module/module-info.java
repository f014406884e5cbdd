// SPDX-License-Identifier: Apache-2.0
/** Ranges, candidate-id sets and paged cursors over snapshots. */
module io.mvbt.cursor {
    requires transitive io.mvbt.revisions;
    requires io.mvbt.btree;
    requires transitive roaringbitmap;

    exports io.mvbt.cursor;
}
