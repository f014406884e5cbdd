// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.util.List;

import io.mvbt.directory.Dn;
import io.mvbt.directory.Filter;
import io.mvbt.directory.SearchScope;

/**
 * One search of the benchmark: a base, a scope and a filter, parsed once (both stores prepare their
 * searches before timing: mvbt keeps the parsed DN and filter, SQLite a prepared statement).
 */
record DirectorySearch(String name, Dn base, SearchScope scope, Filter filter) {
    static DirectorySearch of(String name, String base, SearchScope scope, String filter) {
        return new DirectorySearch(name, Dn.parse(base), scope, Filter.parse(filter));
    }

    /**
     * The searches of ApacheDS's SearchPerfIT (base object, one level, subtree; 1, 5 and 10 entries)
     * and three filters over the whole suffix: an AND with an OR of prefixes and a NOT; a narrow
     * {@code >=} with a wide {@code <=}; two wide ranges of one attribute.
     */
    static List<DirectorySearch> all(DirectoryData data) {
        return List.of(
                of("base-object", DirectoryData.personDn(data.people / 2), SearchScope.OBJECT, "(objectClass=*)"),
                of("one-level", "ou=site3," + DirectoryData.SITES, SearchScope.ONELEVEL, "(objectClass=*)"),
                of("subtree", "ou=site7," + DirectoryData.SITES, SearchScope.SUBTREE, "(objectClass=*)"),
                of("filter-and-or-not", DirectoryData.SUFFIX, SearchScope.SUBTREE,
                        "(&(objectClass=person)(|(sn=smith*)(givenName=ann*))(!(uid=u1*)))"),
                of("filter-range", DirectoryData.SUFFIX, SearchScope.SUBTREE,
                        "(&(objectClass=inetOrgPerson)(employeeNumber>=99800000)(givenName<=m))"),
                // Two wide ranges of one attribute: neither store may read them as one range (a
                // multi-valued attribute matches with one value >= and another <=), so both intersect.
                of("filter-between", DirectoryData.SUFFIX, SearchScope.SUBTREE,
                        "(&(employeeNumber>=20000000)(employeeNumber<=20199999))"));
    }

    /** The searches whose query plans the report prints. */
    boolean isComplexFilter() {
        return name.startsWith("filter-");
    }

    @Override
    public String toString() {
        return name + ": base " + base + ", scope " + scope + ", filter " + filter;
    }
}
