// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import org.apache.directory.api.ldap.model.entry.DefaultModification;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.entry.ModificationOperation;
import org.apache.directory.api.ldap.model.message.SearchScope;
import org.apache.directory.ldap.client.api.LdapNetworkConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Searches and writes at once on an mvbt partition through a real server and real clients,
 * without the server-wide read lock ({@code MVBT}) and under ApacheDS's own operation manager
 * and its lock ({@code MVBT_STOCK}), and the data after restarts. Sizes follow mvbt.profile.
 */
class ConcurrentLdapTest {
    private static final boolean LONG = "long".equals(System.getProperty("mvbt.profile"));

    @TempDir
    Path directory;

    @ParameterizedTest
    @EnumSource(names = {"MVBT", "MVBT_STOCK"})
    void clientsThatAddSearchAndDeleteSeeEverythingAndNothingStale(DirectoryServer.Kind kind) throws Exception {
        try (DirectoryServer server = DirectoryServer.start(kind, directory, true)) {
            Workloads.Counts counts = Workloads.clientsAddSearchDelete(server.port(), 20, LONG ? 100 : 25, LONG ? 10 : 1);
            System.out.println("2014 scenario on " + kind + ": " + counts);
            assertEquals(0, counts.errors.get(), counts.toString());
            assertEquals(0, counts.missing.get(), counts.toString());
            assertEquals(0, counts.stale.get(), counts.toString());
            assertEquals(0, counts.torn.get(), counts.toString());
            assertEquals(counts.adds.get(), counts.deletes.get());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"MVBT", "MVBT_STOCK"})
    void readersSeeWholeStatesWhileAWriterAddsAndDeletes(DirectoryServer.Kind kind) throws Exception {
        try (DirectoryServer server = DirectoryServer.start(kind, directory, true)) {
            Workloads.Counts counts = Workloads.writerAndOneLevelReaders(server.port(), LONG ? 2500 : 300, 5);
            System.out.println("1 writer, 5 ONELEVEL readers on " + kind + ": " + counts);
            assertEquals(0, counts.errors.get(), counts.toString());
            assertEquals(0, counts.missing.get(), counts.toString());
            assertEquals(0, counts.torn.get(), counts.toString());
            assertEquals(counts.adds.get(), counts.deletes.get());
        }
    }

    @Test
    void entriesAndIndexesSurviveRestarts() throws Exception {
        int n = 200;
        try (DirectoryServer server = DirectoryServer.start(DirectoryServer.Kind.MVBT, directory, true);
                LdapNetworkConnection ldap = Ldap.connect(server.port())) {
            for (int i = 0; i < n; i++) {
                ldap.add(Workloads.person("r" + i));
            }
            ldap.modify("uid=r1," + DirectoryServer.PEOPLE,
                    new DefaultModification(ModificationOperation.REPLACE_ATTRIBUTE, "cn", "Changed"));
            ldap.rename("uid=r2," + DirectoryServer.PEOPLE, "uid=x-renamed", true);
            ldap.delete("uid=r3," + DirectoryServer.PEOPLE);
        }
        for (int restart = 0; restart < 2; restart++) {
            try (DirectoryServer server = DirectoryServer.start(DirectoryServer.Kind.MVBT, directory, false);
                    LdapNetworkConnection ldap = Ldap.connect(server.port())) {
                assertEquals(n - 2, Ldap.dns(ldap, DirectoryServer.PEOPLE, SearchScope.ONELEVEL, "(uid=r*)").size());
                assertEquals("Changed", ldap.lookup("uid=r1," + DirectoryServer.PEOPLE).get("cn").getString());
                assertEquals(1, Ldap.dns(ldap, DirectoryServer.BASE, SearchScope.SUBTREE, "(cn=changed)").size(),
                        "the index survived with the entry");
                assertNotNull(ldap.lookup("uid=x-renamed," + DirectoryServer.PEOPLE));
                assertNull(ldap.lookup("uid=r2," + DirectoryServer.PEOPLE));
                assertNull(ldap.lookup("uid=r3," + DirectoryServer.PEOPLE));
                ldap.add(Workloads.person("after" + restart));
            }
        }
        try (DirectoryServer server = DirectoryServer.start(DirectoryServer.Kind.MVBT, directory, false);
                LdapNetworkConnection ldap = Ldap.connect(server.port())) {
            assertEquals(2, Ldap.dns(ldap, DirectoryServer.PEOPLE, SearchScope.ONELEVEL, "(uid=after*)").size());
        }
    }

    @Test
    void anIndexAddedToAPartitionWithEntriesIsBuiltAndOneDroppedIsRebuilt() throws Exception {
        try (DirectoryServer server = DirectoryServer.start(DirectoryServer.Kind.MVBT, directory, true);
                LdapNetworkConnection ldap = Ldap.connect(server.port())) {
            for (int i = 0; i < 50; i++) {
                Entry person = Workloads.person("i" + i);
                person.add("description", "group" + i % 5);
                ldap.add(person);
            }
        }
        try (DirectoryServer server = DirectoryServer.start(DirectoryServer.Kind.MVBT, directory, false,
                "uid", "ou", "cn", "description");
                LdapNetworkConnection ldap = Ldap.connect(server.port())) {
            assertEquals(10, Ldap.dns(ldap, DirectoryServer.BASE, SearchScope.SUBTREE, "(description=group1)").size(),
                    "the new index holds the entries added before it");
            assertEquals(50, Ldap.dns(ldap, DirectoryServer.BASE, SearchScope.SUBTREE, "(description=*)").size());
        }
        try (DirectoryServer server = DirectoryServer.start(DirectoryServer.Kind.MVBT, directory, false);
                LdapNetworkConnection ldap = Ldap.connect(server.port())) {
            // the index is no longer configured: its trees go, and these changes are not in them
            ldap.modify("uid=i1," + DirectoryServer.PEOPLE,
                    new DefaultModification(ModificationOperation.REPLACE_ATTRIBUTE, "description", "moved"));
            ldap.delete("uid=i6," + DirectoryServer.PEOPLE);
        }
        try (DirectoryServer server = DirectoryServer.start(DirectoryServer.Kind.MVBT, directory, false,
                "uid", "ou", "cn", "description");
                LdapNetworkConnection ldap = Ldap.connect(server.port())) {
            assertEquals(8, Ldap.dns(ldap, DirectoryServer.BASE, SearchScope.SUBTREE, "(description=group1)").size(),
                    "configured again, the index is rebuilt from the entries");
            assertEquals(1, Ldap.dns(ldap, DirectoryServer.BASE, SearchScope.SUBTREE, "(description=moved)").size());
        }
    }
}
