// SPDX-License-Identifier: Apache-2.0
/** The store: named trees, write transactions, snapshots, durability and recovery. */
module io.mvbt.revisions {
    requires transitive io.mvbt.pagestore;
    requires io.mvbt.btree;
    // The store's Flight Recorder events (StoreEvents).
    requires jdk.jfr;

    exports io.mvbt.revisions;
}
