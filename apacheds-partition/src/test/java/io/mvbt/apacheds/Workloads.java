// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.directory.api.ldap.model.cursor.EntryCursor;
import org.apache.directory.api.ldap.model.entry.DefaultEntry;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.message.SearchScope;
import org.apache.directory.ldap.client.api.LdapNetworkConnection;

/** The concurrent LDAP workloads of issue 31, run by LDAP clients against a server on a port. */
final class Workloads {
    private Workloads() {
    }

    /** What a workload counted. */
    static final class Counts {
        final AtomicLong adds = new AtomicLong();
        final AtomicLong deletes = new AtomicLong();
        final AtomicLong searches = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong missing = new AtomicLong();
        final AtomicLong stale = new AtomicLong();
        final AtomicLong torn = new AtomicLong();
        final List<String> firstErrors = new ArrayList<>();
        volatile long nanos;

        synchronized void error(Throwable e) {
            errors.incrementAndGet();
            if (firstErrors.size() < 3) {
                firstErrors.add(e.toString());
            }
        }

        double perSecond(AtomicLong n) {
            return n.get() * 1e9 / Math.max(1, nanos);
        }

        @Override
        public String toString() {
            return String.format("adds %d (%.0f/s), deletes %d, searches %d (%.0f/s), errors %d, missing %d, stale %d,"
                    + " torn %d%s", adds.get(), perSecond(adds), deletes.get(), searches.get(), perSecond(searches),
                    errors.get(), missing.get(), stale.get(), torn.get(), firstErrors.isEmpty() ? "" : " " + firstErrors);
        }
    }

    static Entry person(String id) throws Exception {
        return new DefaultEntry("uid=" + id + "," + DirectoryServer.PEOPLE, "objectClass: inetOrgPerson",
                "uid: " + id, "cn: Person " + id, "sn: " + id);
    }

    /**
     * The 2014 report's test: each client adds its entries, searches all the entries under the
     * people unit (its own must all be there: none missing; every entry whole), deletes its
     * entries and searches again (none of its own left: none stale), round after round.
     */
    static Counts clientsAddSearchDelete(int port, int clients, int entries, int rounds) throws Exception {
        Counts counts = new Counts();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            String client = "c" + c;
            done.add(pool.submit(() -> {
                try (LdapNetworkConnection ldap = Ldap.connect(port)) {
                    for (int r = 0; r < rounds; r++) {
                        for (int i = 0; i < entries; i++) {
                            try {
                                Ldap.add(ldap, person(client + "-" + i));
                                counts.adds.incrementAndGet();
                            } catch (Exception e) {
                                counts.error(e);
                            }
                        }
                        TreeSet<String> mine = ownEntries(ldap, client, counts);
                        counts.missing.addAndGet(entries - mine.size());
                        for (int i = 0; i < entries; i++) {
                            try {
                                Ldap.delete(ldap, "uid=" + client + "-" + i + "," + DirectoryServer.PEOPLE);
                                counts.deletes.incrementAndGet();
                            } catch (Exception e) {
                                counts.error(e);
                            }
                        }
                        counts.stale.addAndGet(ownEntries(ldap, client, counts).size());
                    }
                } catch (Exception e) {
                    counts.error(e);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        counts.nanos = System.nanoTime() - start;
        pool.shutdown();
        return counts;
    }

    /** Searches every entry under the people unit; returns this client's, counts torn ones and errors. */
    private static TreeSet<String> ownEntries(LdapNetworkConnection ldap, String client, Counts counts) {
        TreeSet<String> mine = new TreeSet<>();
        try (EntryCursor cursor = ldap.search(DirectoryServer.PEOPLE, "(objectClass=*)", SearchScope.SUBTREE, "*")) {
            while (cursor.next()) {
                Entry e = cursor.get();
                if (!whole(e)) {
                    counts.torn.incrementAndGet();
                    continue;
                }
                String uid = e.get("uid") == null ? "" : e.get("uid").getString();
                if (uid.startsWith(client + "-")) {
                    mine.add(uid);
                }
            }
            counts.searches.incrementAndGet();
        } catch (Exception e) {
            counts.error(e);
        }
        return mine;
    }

    /** An inetOrgPerson as added: its cn names its uid. The people unit itself is whole too. */
    private static boolean whole(Entry e) throws Exception {
        if (e.get("uid") == null) {
            return e.get("ou") != null;
        }
        return e.get("cn") != null && e.get("cn").getString().equals("Person " + e.get("uid").getString());
    }

    /**
     * MultiThreadedReadWriteTest's shape: one writer adds entries w0, w1, ... then deletes them
     * in the same order while readers search the people unit one level down in a loop. A search
     * that reads one state of the directory sees a contiguous run of numbers (those added and not
     * yet deleted): a gap is an entry missing from it, and is counted as such.
     */
    static Counts writerAndOneLevelReaders(int port, int entries, int readers) throws Exception {
        Counts counts = new Counts();
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(readers + 1);
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            done.add(pool.submit(() -> {
                try (LdapNetworkConnection ldap = Ldap.connect(port)) {
                    while (writing.get()) {
                        TreeSet<Integer> seen = new TreeSet<>();
                        try (EntryCursor cursor = ldap.search(DirectoryServer.PEOPLE, "(objectClass=*)",
                                SearchScope.ONELEVEL, "*")) {
                            while (cursor.next()) {
                                Entry e = cursor.get();
                                if (!whole(e)) {
                                    counts.torn.incrementAndGet();
                                } else if (e.get("uid").getString().startsWith("w")) {
                                    seen.add(Integer.parseInt(e.get("uid").getString().substring(1)));
                                }
                            }
                            counts.searches.incrementAndGet();
                        } catch (Exception e) {
                            counts.error(e);
                            continue;
                        }
                        if (!seen.isEmpty()) {
                            counts.missing.addAndGet(seen.last() - seen.first() + 1 - seen.size());
                        }
                    }
                } catch (Exception e) {
                    counts.error(e);
                }
                return null;
            }));
        }
        try (LdapNetworkConnection ldap = Ldap.connect(port)) {
            for (int i = 0; i < entries; i++) {
                try {
                    Ldap.add(ldap, person("w" + i));
                    counts.adds.incrementAndGet();
                } catch (Exception e) {
                    counts.error(e);
                }
            }
            for (int i = 0; i < entries; i++) {
                try {
                    Ldap.delete(ldap, "uid=w" + i + "," + DirectoryServer.PEOPLE);
                    counts.deletes.incrementAndGet();
                } catch (Exception e) {
                    counts.error(e);
                }
            }
        } finally {
            writing.set(false);
        }
        for (Future<?> f : done) {
            f.get();
        }
        counts.nanos = System.nanoTime() - start;
        pool.shutdown();
        return counts;
    }
}
