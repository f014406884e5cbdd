// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.directory.api.ldap.model.cursor.EntryCursor;
import org.apache.directory.api.ldap.model.message.SearchScope;
import org.apache.directory.ldap.client.api.LdapNetworkConnection;

/**
 * ApacheDS's SearchPerfIT shape over LDAP: one client searching one entry in a loop, with an
 * OBJECT search of its DN, a ONELEVEL search of its parent and a SUBTREE search of the suffix
 * (equality on the indexed uid), alone and beside a client that adds entries all the while.
 */
final class SearchRates {
    private SearchRates() {
    }

    /** Searches per second of each scope, then adds and searches per second with a writer. */
    static String measure(int port, int entries, long millis) throws Exception {
        try (LdapNetworkConnection ldap = Ldap.connect(port)) {
            for (int i = 0; i < entries; i++) {
                Ldap.add(ldap, Workloads.person("s" + i));
            }
        }
        StringBuilder out = new StringBuilder();
        for (SearchScope scope : new SearchScope[] {SearchScope.OBJECT, SearchScope.ONELEVEL, SearchScope.SUBTREE}) {
            searches(port, entries, scope, millis); // warm-up: the peers run one after another in one JVM
        }
        for (SearchScope scope : new SearchScope[] {SearchScope.OBJECT, SearchScope.ONELEVEL, SearchScope.SUBTREE}) {
            out.append(String.format("%s %.0f/s, ", scope, searches(port, entries, scope, millis)));
        }
        AtomicLong adds = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = new Thread(() -> {
            try (LdapNetworkConnection ldap = Ldap.connect(port)) {
                for (int i = 0; !stop.get(); i++) {
                    Ldap.add(ldap, Workloads.person("a" + i));
                    adds.incrementAndGet();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        writer.start();
        long start = System.nanoTime();
        double withWriter = searches(port, entries, SearchScope.SUBTREE, millis);
        stop.set(true);
        writer.join();
        double addRate = adds.get() * 1e9 / (System.nanoTime() - start);
        out.append(String.format("SUBTREE beside a writer %.0f/s with %.0f adds/s", withWriter, addRate));
        return out.toString();
    }

    private static double searches(int port, int entries, SearchScope scope, long millis) throws Exception {
        Random random = new Random(7);
        long n = 0;
        try (LdapNetworkConnection ldap = Ldap.connect(port)) {
            long start = System.nanoTime();
            long end = start + millis * 1_000_000;
            while (System.nanoTime() < end) {
                String uid = "s" + random.nextInt(entries);
                String base = scope == SearchScope.OBJECT ? "uid=" + uid + "," + DirectoryServer.PEOPLE
                        : scope == SearchScope.ONELEVEL ? DirectoryServer.PEOPLE : DirectoryServer.BASE;
                int found = 0;
                try (EntryCursor cursor = ldap.search(base, "(uid=" + uid + ")", scope, "*")) {
                    while (cursor.next()) {
                        found++;
                    }
                }
                if (found != 1) {
                    throw new IllegalStateException(scope + " search of " + uid + " found " + found);
                }
                n++;
            }
            return n * 1e9 / (System.nanoTime() - start);
        }
    }
}
