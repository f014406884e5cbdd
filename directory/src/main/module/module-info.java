// SPDX-License-Identifier: Apache-2.0
/** LDAP-style entries searched on snapshots while they change. */
module io.mvbt.directory {
    requires transitive io.mvbt.cursor;

    exports io.mvbt.directory;
}
