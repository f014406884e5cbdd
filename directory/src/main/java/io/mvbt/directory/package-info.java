// SPDX-License-Identifier: Apache-2.0
/** An LDAP-style entry store on mvbt, searched on snapshots while it changes. */
package io.mvbt.directory;
