// SPDX-License-Identifier: Apache-2.0
/** The store: named trees, write transactions, snapshots, durability and recovery. */
module io.mvbt.revisions {
    requires transitive io.mvbt.pagestore;
    requires io.mvbt.btree;

    exports io.mvbt.revisions;
}
