// SPDX-License-Identifier: Apache-2.0
/** A Usenet news server's history table with expiry in place. */
module io.mvbt.history {
    requires transitive io.mvbt.revisions;

    exports io.mvbt.history;
}
