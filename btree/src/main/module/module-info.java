// SPDX-License-Identifier: Apache-2.0
/** The B+tree over pages: formats, copy-on-write editing, cursors, validation. Internal to mvbt. */
module io.mvbt.btree {
    requires transitive io.mvbt.pagestore;

    exports io.mvbt.btree to io.mvbt.revisions, io.mvbt.cursor;
}
