// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.directory.api.ldap.model.cursor.SearchCursor;
import org.apache.directory.api.ldap.model.entry.DefaultEntry;
import org.apache.directory.api.ldap.model.entry.DefaultModification;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.entry.ModificationOperation;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.api.ldap.model.message.AliasDerefMode;
import org.apache.directory.api.ldap.model.message.Control;
import org.apache.directory.api.ldap.model.message.SearchRequest;
import org.apache.directory.api.ldap.model.message.SearchRequestImpl;
import org.apache.directory.api.ldap.model.message.SearchResultDone;
import org.apache.directory.api.ldap.model.message.SearchScope;
import org.apache.directory.api.ldap.model.message.controls.PagedResults;
import org.apache.directory.api.ldap.model.message.controls.PagedResultsImpl;
import org.apache.directory.api.ldap.model.name.Dn;
import org.apache.directory.ldap.client.api.LdapNetworkConnection;
import org.apache.directory.server.annotations.CreateLdapServer;
import org.apache.directory.server.annotations.CreateTransport;
import org.apache.directory.server.core.annotations.ContextEntry;
import org.apache.directory.server.core.annotations.CreateDS;
import org.apache.directory.server.core.annotations.CreateIndex;
import org.apache.directory.server.core.annotations.CreatePartition;
import org.apache.directory.server.core.annotations.LoadSchema;
import org.apache.directory.server.core.integ.AbstractLdapTestUnit;
import org.apache.directory.server.core.integ.ApacheDSTestExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * LDAP operations through a real ApacheDS server (its test framework, its LDAP protocol) and a
 * real client, on an mvbt partition: every entry change, every scope, every filter kind (on
 * indexed and unindexed attributes), paged results, each checked against a model of the entries.
 */
@ExtendWith(ApacheDSTestExtension.class)
@CreateDS(name = "LdapOperationsTest", factory = MvbtDirectoryServiceFactory.class, enableChangeLog = false,
        loadedSchemas = @LoadSchema(name = "nis", enabled = true),
        partitions = @CreatePartition(name = "example", suffix = "dc=example,dc=com", type = MvbtPartition.class,
                contextEntry = @ContextEntry(entryLdif = "dn: dc=example,dc=com\n"
                        + "objectClass: top\nobjectClass: domain\ndc: example\n\n"),
                indexes = {@CreateIndex(attribute = "ou"), @CreateIndex(attribute = "uid"),
                    @CreateIndex(attribute = "cn"), @CreateIndex(attribute = "uidNumber")}))
@CreateLdapServer(transports = @CreateTransport(protocol = "LDAP", address = "localhost"))
class LdapOperationsTest extends AbstractLdapTestUnit {
    private static final String BASE = "dc=example,dc=com";

    private LdapNetworkConnection ldap;

    @BeforeEach
    void connect() throws Exception {
        assertTrue(getService().getPartitionNexus().getPartition(new Dn(getService().getSchemaManager(), BASE))
                instanceof MvbtPartition, "the test partition is an mvbt partition");
        ldap = Ldap.connect(getLdapServer().getPort());
    }

    @AfterEach
    void disconnect() throws Exception {
        Ldap.deleteChildren(ldap, BASE);
        ldap.close();
    }

    @Test
    void entriesAreAddedReadChangedRenamedMovedAndDeleted() throws Exception {
        ldap.add(new DefaultEntry("ou=people," + BASE, "objectClass: organizationalUnit", "ou: people"));
        ldap.add(new DefaultEntry("ou=former," + BASE, "objectClass: organizationalUnit", "ou: former"));
        ldap.add(Ldap.person("ou=people," + BASE, 1));
        Entry read = ldap.lookup("uid=u1,ou=people," + BASE);
        assertNotNull(read);
        assertEquals("Person 1", read.get("cn").getString());
        assertEquals("1", read.get("uidNumber").getString());

        ldap.modify("uid=u1,ou=people," + BASE,
                new DefaultModification(ModificationOperation.REPLACE_ATTRIBUTE, "cn", "Renamed One"),
                new DefaultModification(ModificationOperation.ADD_ATTRIBUTE, "description", "added"),
                new DefaultModification(ModificationOperation.REPLACE_ATTRIBUTE, "uidNumber", "1001"));
        read = ldap.lookup("uid=u1,ou=people," + BASE);
        assertEquals("Renamed One", read.get("cn").getString());
        assertEquals("added", read.get("description").getString());
        assertEquals(Set.of("uid=u1,ou=people," + BASE), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(cn=renamed one)"));
        assertEquals(Set.of(), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(cn=Person 1)"), "the old value left the index");
        assertEquals(Set.of("uid=u1,ou=people," + BASE), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(uidNumber>=1000)"));

        ldap.rename("uid=u1,ou=people," + BASE, "uid=first", true);
        assertNull(ldap.lookup("uid=u1,ou=people," + BASE));
        assertNotNull(ldap.lookup("uid=first,ou=people," + BASE));
        assertEquals(Set.of("uid=first,ou=people," + BASE), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(uid=first)"));
        assertEquals(Set.of(), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(uid=u1)"));

        ldap.move("uid=first,ou=people," + BASE, "ou=former," + BASE);
        assertEquals(Set.of("uid=first,ou=former," + BASE),
                Ldap.dns(ldap, "ou=former," + BASE, SearchScope.ONELEVEL, "(objectClass=*)"));
        assertEquals(Set.of(), Ldap.dns(ldap, "ou=people," + BASE, SearchScope.ONELEVEL, "(objectClass=*)"));

        LdapException exists = assertThrows(LdapException.class, () -> ldap.add(new DefaultEntry(
                "ou=former," + BASE, "objectClass: organizationalUnit", "ou: former")));
        assertNotNull(exists.getMessage());
        assertThrows(LdapException.class, () -> ldap.add(new DefaultEntry("uid=x,ou=missing," + BASE,
                "objectClass: account", "uid: x")), "no parent");
        assertThrows(LdapException.class, () -> ldap.add(new DefaultEntry("uid=y,ou=former," + BASE,
                "objectClass: inetOrgPerson", "uid: y")), "the schema's checks apply: an inetOrgPerson needs cn and sn");
        assertNull(ldap.lookup("uid=y,ou=former," + BASE), "a refused add changed nothing");

        ldap.delete("uid=first,ou=former," + BASE);
        assertNull(ldap.lookup("uid=first,ou=former," + BASE));
        assertEquals(Set.of(), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(uid=first)"));
    }

    @Test
    void everyScopeAndFilterFindsWhatTheModelFinds() throws Exception {
        Random random = new Random(31);
        Map<String, Map<String, String>> model = new TreeMap<>();
        String[] units = {"ou=a," + BASE, "ou=b,ou=a," + BASE, "ou=c," + BASE};
        for (String unit : units) {
            String ou = unit.substring(3, unit.indexOf(','));
            ldap.add(new DefaultEntry(unit, "objectClass: organizationalUnit", "ou: " + ou));
        }
        for (int i = 0; i < 120; i++) {
            String parent = units[random.nextInt(units.length)];
            Entry person = Ldap.person(parent, i);
            if (random.nextBoolean()) {
                person.add("description", "d" + random.nextInt(5));
            }
            ldap.add(person);
            Map<String, String> attributes = new TreeMap<>();
            attributes.put("uid", "u" + i);
            attributes.put("cn", "person " + i);
            attributes.put("uidNumber", Integer.toString(i));
            if (person.containsAttribute("description")) {
                attributes.put("description", person.get("description").getString());
            }
            model.put(person.getDn().getName(), attributes);
        }
        Map<String, Predicate<Map<String, String>>> filters = new TreeMap<>();
        filters.put("(uid=u7)", a -> a.get("uid").equals("u7"));
        filters.put("(cn=person 1*)", a -> a.get("cn").startsWith("person 1"));
        filters.put("(cn=*son 2*)", a -> a.get("cn").contains("son 2"));
        filters.put("(cn=*9)", a -> a.get("cn").endsWith("9"));
        filters.put("(uidNumber>=100)", a -> Integer.parseInt(a.get("uidNumber")) >= 100);
        filters.put("(uidNumber<=9)", a -> Integer.parseInt(a.get("uidNumber")) <= 9);
        filters.put("(uidNumber>=119)", a -> Integer.parseInt(a.get("uidNumber")) >= 119);
        filters.put("(uidNumber<=0)", a -> Integer.parseInt(a.get("uidNumber")) <= 0);
        filters.put("(uidNumber>=120)", a -> false);
        filters.put("(&(uidNumber>=-5)(uidNumber<=-1))", a -> false);
        filters.put("(description=*)", a -> a.containsKey("description"));
        filters.put("(description=d3)", a -> "d3".equals(a.get("description")));
        filters.put("(&(uidNumber>=20)(uidNumber<=40)(description=*))", a -> {
            int n = Integer.parseInt(a.get("uidNumber"));
            return n >= 20 && n <= 40 && a.containsKey("description");
        });
        filters.put("(|(uid=u1)(uid=u2)(description=d0))", a -> a.get("uid").equals("u1") || a.get("uid").equals("u2")
                || "d0".equals(a.get("description")));
        filters.put("(&(objectClass=inetOrgPerson)(!(description=d1)))", a -> !"d1".equals(a.get("description")));
        filters.put("(&(uid=*)(!(uidNumber>=60)))", a -> Integer.parseInt(a.get("uidNumber")) < 60);
        for (String base : List.of(BASE, units[0], units[1], units[2])) {
            for (SearchScope scope : List.of(SearchScope.OBJECT, SearchScope.ONELEVEL, SearchScope.SUBTREE)) {
                for (Map.Entry<String, Predicate<Map<String, String>>> filter : filters.entrySet()) {
                    Set<String> expected = new TreeSet<>();
                    for (Map.Entry<String, Map<String, String>> e : model.entrySet()) {
                        if (inScope(e.getKey(), base, scope) && filter.getValue().test(e.getValue())) {
                            expected.add(e.getKey());
                        }
                    }
                    assertEquals(expected, Ldap.dns(ldap, base, scope, filter.getKey()),
                            filter.getKey() + " " + scope + " under " + base);
                }
            }
        }
        assertEquals(Set.of(units[1]), Ldap.dns(ldap, units[0], SearchScope.ONELEVEL, "(objectClass=organizationalUnit)"));
        assertEquals(Set.of(units[0], units[1]), Ldap.dns(ldap, units[0], SearchScope.SUBTREE, "(ou=*)"));
    }

    private static boolean inScope(String dn, String base, SearchScope scope) {
        switch (scope) {
            case OBJECT:
                return dn.equals(base);
            case ONELEVEL:
                return dn.endsWith("," + base) && dn.indexOf(',') == dn.length() - base.length() - 1;
            default:
                return dn.equals(base) || dn.endsWith("," + base);
        }
    }

    @Test
    void aModificationThatFailsInThePartitionChangesNothing() throws Exception {
        ldap.add(new DefaultEntry("ou=people," + BASE, "objectClass: organizationalUnit", "ou: people"));
        ldap.add(Ldap.person("ou=people," + BASE, 1));
        String huge = "x".repeat(20_000);
        Entry big = Ldap.person("ou=people," + BASE, 2);
        big.put("cn", huge);
        LdapException tooLong = assertThrows(LdapException.class, () -> ldap.add(big));
        assertTrue(tooLong.getMessage().contains("longer than"), tooLong.getMessage());
        assertNull(ldap.lookup("uid=u2,ou=people," + BASE), "the entry was not added");
        assertEquals(Set.of(), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(uid=u2)"), "nor any of its index entries");
        assertThrows(LdapException.class, () -> ldap.modify("uid=u1,ou=people," + BASE,
                new DefaultModification(ModificationOperation.REPLACE_ATTRIBUTE, "uid", "u1-new"),
                new DefaultModification(ModificationOperation.ADD_ATTRIBUTE, "cn", huge)));
        Entry u1 = ldap.lookup("uid=u1,ou=people," + BASE);
        assertEquals("Person 1", u1.get("cn").getString());
        assertEquals(1, u1.get("cn").size(), "the failed modify left the entry as it was");
        assertEquals(Set.of("uid=u1,ou=people," + BASE), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(uid=u1)"));
        assertEquals(Set.of(), Ldap.dns(ldap, BASE, SearchScope.SUBTREE, "(uid=u1-new)"), "and its indexes");
        ldap.add(Ldap.person("ou=people," + BASE, 3));
        assertNotNull(ldap.lookup("uid=u3,ou=people," + BASE), "the store still takes writes");
    }

    @Test
    void searchesFromTheRootLeaveNoSnapshotOpen() throws Exception {
        ldap.add(new DefaultEntry("ou=people," + BASE, "objectClass: organizationalUnit", "ou: people"));
        ldap.add(Ldap.person("ou=people," + BASE, 1));
        MvbtPartition partition = (MvbtPartition) getService().getPartitionNexus().getPartition(
                new Dn(getService().getSchemaManager(), BASE));
        // ApacheDS opens a transaction in every partition for a search from the root DSE and closes none
        for (int i = 0; i < 1_200; i++) {
            assertEquals(Set.of("uid=u1,ou=people," + BASE), Ldap.dns(ldap, "", SearchScope.SUBTREE, "(uid=u1)"));
        }
        assertNotNull(ldap.lookup("uid=u1,ou=people," + BASE), "more searches than reader slots, and reads go on");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (partition.store().readers().size() > 20 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
        }
        assertTrue(partition.store().readers().size() <= 20, "dropped snapshots are closed once unreachable: "
                + partition.store().readers().size() + " open");
    }

    @Test
    void aliasesAreDereferenced() throws Exception {
        ldap.add(new DefaultEntry("ou=people," + BASE, "objectClass: organizationalUnit", "ou: people"));
        ldap.add(Ldap.person("ou=people," + BASE, 1));
        ldap.add(new DefaultEntry("ou=staff," + BASE, "objectClass: alias", "objectClass: extensibleObject",
                "ou: staff", "aliasedObjectName: ou=people," + BASE));
        SearchRequest request = new SearchRequestImpl();
        request.setBase(new Dn("ou=staff," + BASE));
        request.setScope(SearchScope.ONELEVEL);
        request.setFilter("(uid=*)");
        request.setDerefAliases(AliasDerefMode.DEREF_ALWAYS);
        Set<String> found = new TreeSet<>();
        try (SearchCursor cursor = ldap.search(request)) {
            while (cursor.next()) {
                if (cursor.isEntry()) {
                    found.add(cursor.getEntry().getDn().getName());
                }
            }
        }
        assertEquals(Set.of("uid=u1,ou=people," + BASE), found, "a search based at the alias reads its target");
    }

    @Test
    void pagedResultsReturnEveryEntryOnce() throws Exception {
        ldap.add(new DefaultEntry("ou=people," + BASE, "objectClass: organizationalUnit", "ou: people"));
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 95; i++) {
            Entry person = Ldap.person("ou=people," + BASE, i);
            ldap.add(person);
            expected.add(person.getDn().getName());
        }
        List<String> seen = new ArrayList<>();
        byte[] cookie = null;
        int pages = 0;
        do {
            SearchRequest request = new SearchRequestImpl();
            request.setBase(new Dn("ou=people," + BASE));
            request.setScope(SearchScope.ONELEVEL);
            request.setFilter("(objectClass=person)");
            PagedResults paged = new PagedResultsImpl();
            paged.setSize(10);
            paged.setCookie(cookie);
            request.addControl(paged);
            try (SearchCursor cursor = ldap.search(request)) {
                while (cursor.next()) {
                    if (cursor.isEntry()) {
                        seen.add(cursor.getEntry().getDn().getName());
                    }
                }
                SearchResultDone done = cursor.getSearchResultDone();
                Control control = done.getControl(PagedResults.OID);
                cookie = control == null ? null : ((PagedResults) control).getCookie();
            }
            pages++;
        } while (cookie != null && cookie.length > 0);
        assertEquals(10, pages);
        assertEquals(expected.size(), seen.size(), "no entry twice");
        assertEquals(expected, new TreeSet<>(seen));
    }
}
