// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

/** How far below the base a search looks (LDAP's scope). */
public enum SearchScope {
    /** The base entry alone. */
    OBJECT,
    /** The base's immediate children (not the base). */
    ONELEVEL,
    /** The base and everything below it. */
    SUBTREE
}
