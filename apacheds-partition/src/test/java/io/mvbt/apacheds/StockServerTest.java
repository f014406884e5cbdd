// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;
import org.apache.directory.api.ldap.model.entry.DefaultEntry;
import org.apache.directory.api.ldap.model.entry.DefaultModification;
import org.apache.directory.api.ldap.model.entry.ModificationOperation;
import org.apache.directory.api.ldap.model.message.SearchScope;
import org.apache.directory.api.ldap.model.name.Dn;
import org.apache.directory.api.ldap.model.name.Rdn;
import org.apache.directory.ldap.client.api.LdapNetworkConnection;
import org.apache.directory.server.core.DefaultOperationManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partition dropped into a stock ApacheDS server, as a user configuring a partition would:
 * a JDBM system partition, ApacheDS's own operation manager and its server-wide lock. Every
 * operation works there and none waits for a transaction of its own operation (the concurrent
 * workloads run in this mode too: {@link ConcurrentLdapTest}, {@link FilterModelTest}).
 */
class StockServerTest {
    private static final String PEOPLE = DirectoryServer.PEOPLE;

    @TempDir
    Path directory;

    @Test
    void everyOperationWorksUnderApacheDsOwnOperationManager() throws Exception {
        try (DirectoryServer server = DirectoryServer.start(DirectoryServer.Kind.MVBT_STOCK, directory, true);
                LdapNetworkConnection ldap = Ldap.connect(server.port())) {
            assertEquals(DefaultOperationManager.class, server.service.getOperationManager().getClass());
            assertTrue(server.service.getPartitionNexus().getPartition(new Dn(server.service.getSchemaManager(),
                    DirectoryServer.BASE)) instanceof MvbtPartition);
            for (int i = 0; i < 100; i++) {
                Ldap.add(ldap, Workloads.person("p" + i));
            }
            Ldap.add(ldap, new DefaultEntry("ou=former," + DirectoryServer.BASE, "objectClass: organizationalUnit",
                    "ou: former"));
            assertEquals("Person p1", ldap.lookup("uid=p1," + PEOPLE).get("cn").getString());
            assertTrue(ldap.compare("uid=p1," + PEOPLE, "sn", "p1"));
            assertFalse(ldap.compare("uid=p1," + PEOPLE, "sn", "p2"));

            ldap.modify("uid=p1," + PEOPLE, new DefaultModification(ModificationOperation.REPLACE_ATTRIBUTE, "cn",
                    "Changed"));
            assertEquals(Set.of("uid=p1," + PEOPLE), Ldap.dns(ldap, DirectoryServer.BASE, SearchScope.SUBTREE,
                    "(cn=changed)"));

            ldap.rename("uid=p2," + PEOPLE, "uid=q2", true);
            assertNull(ldap.lookup("uid=p2," + PEOPLE));
            assertNotNull(ldap.lookup("uid=q2," + PEOPLE));
            assertEquals(Set.of("uid=q2," + PEOPLE), Ldap.dns(ldap, DirectoryServer.BASE, SearchScope.SUBTREE,
                    "(uid=q2)"));

            ldap.move("uid=p3," + PEOPLE, "ou=former," + DirectoryServer.BASE);
            assertEquals(Set.of("uid=p3,ou=former," + DirectoryServer.BASE), Ldap.dns(ldap,
                    "ou=former," + DirectoryServer.BASE, SearchScope.ONELEVEL, "(objectClass=person)"));

            ldap.moveAndRename(new Dn("uid=p4," + PEOPLE), new Dn("uid=q4,ou=former," + DirectoryServer.BASE), true);
            assertNotNull(ldap.lookup("uid=q4,ou=former," + DirectoryServer.BASE));
            assertNull(ldap.lookup("uid=p4," + PEOPLE));

            Ldap.delete(ldap, "uid=p5," + PEOPLE);
            assertNull(ldap.lookup("uid=p5," + PEOPLE));
            assertEquals(Set.of(), Ldap.dns(ldap, DirectoryServer.BASE, SearchScope.SUBTREE, "(uid=p5)"));

            assertEquals(100 - 3, Ldap.dns(ldap, PEOPLE, SearchScope.ONELEVEL, "(objectClass=person)").size());
            assertEquals(Set.of("uid=p1," + PEOPLE, "uid=p10," + PEOPLE), Ldap.dns(ldap, PEOPLE, SearchScope.ONELEVEL,
                    "(&(sn>=p1)(sn<=p10))"));
            ldap.add(Workloads.person("after"));
            assertEquals(new Rdn("uid=after"), ldap.lookup("uid=after," + PEOPLE).getDn().getRdn(),
                    "the writer is free after every operation");
        }
    }
}
