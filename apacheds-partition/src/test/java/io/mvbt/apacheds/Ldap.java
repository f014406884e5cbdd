// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.directory.api.ldap.model.cursor.EntryCursor;
import org.apache.directory.api.ldap.model.entry.DefaultEntry;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.message.AddRequestImpl;
import org.apache.directory.api.ldap.model.message.AddResponse;
import org.apache.directory.api.ldap.model.message.DeleteRequestImpl;
import org.apache.directory.api.ldap.model.message.DeleteResponse;
import org.apache.directory.api.ldap.model.message.LdapResult;
import org.apache.directory.api.ldap.model.message.ResultCodeEnum;
import org.apache.directory.api.ldap.model.message.SearchScope;
import org.apache.directory.api.ldap.model.name.Dn;
import org.apache.directory.ldap.client.api.LdapNetworkConnection;

/** What the tests do over LDAP, as a client would. */
final class Ldap {
    private Ldap() {
    }

    static LdapNetworkConnection connect(int port) throws Exception {
        LdapNetworkConnection c = new LdapNetworkConnection("localhost", port);
        c.setTimeOut(60_000);
        c.bind("uid=admin,ou=system", "secret");
        return c;
    }

    static Entry person(String parent, int n) throws Exception {
        return new DefaultEntry("uid=u" + n + "," + parent, "objectClass: inetOrgPerson",
                "objectClass: extensibleObject", "uid: u" + n,
                "cn: Person " + n, "sn: S" + n, "uidNumber: " + n);
    }

    /**
     * Adds {@code entry}; a refusal is an exception with the server's result code and diagnostic
     * message (the client's own exception says only which request failed).
     */
    static void add(LdapNetworkConnection ldap, Entry entry) throws Exception {
        AddResponse response = ldap.add(new AddRequestImpl().setEntry(entry));
        LdapResult result = response.getLdapResult();
        if (result.getResultCode() != ResultCodeEnum.SUCCESS) {
            throw new IllegalStateException("add " + entry.getDn() + ": " + result.getResultCode() + " "
                    + result.getDiagnosticMessage());
        }
    }

    /** Deletes {@code dn}; a refusal is an exception with the server's result code and diagnostic message. */
    static void delete(LdapNetworkConnection ldap, String dn) throws Exception {
        DeleteResponse response = ldap.delete(new DeleteRequestImpl().setName(new Dn(dn)));
        LdapResult result = response.getLdapResult();
        if (result.getResultCode() != ResultCodeEnum.SUCCESS) {
            throw new IllegalStateException("delete " + dn + ": " + result.getResultCode() + " "
                    + result.getDiagnosticMessage());
        }
    }

    /** The DNs (as the server names them) a search returns. */
    static Set<String> dns(LdapNetworkConnection ldap, String base, SearchScope scope, String filter) throws Exception {
        Set<String> found = new TreeSet<>();
        try (EntryCursor cursor = ldap.search(base, filter, scope, "1.1")) {
            while (cursor.next()) {
                found.add(cursor.get().getDn().getName());
            }
        }
        return found;
    }

    /** Deletes everything below {@code base}, deepest first. */
    static void deleteChildren(LdapNetworkConnection ldap, String base) throws Exception {
        List<String> all = new ArrayList<>(dns(ldap, base, SearchScope.SUBTREE, "(objectClass=*)"));
        all.remove(base);
        all.sort((a, b) -> Integer.compare(b.split(",").length, a.split(",").length));
        for (String dn : all) {
            ldap.delete(dn);
        }
    }
}
