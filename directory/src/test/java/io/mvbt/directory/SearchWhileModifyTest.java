// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.testkit.Profile;

/**
 * The searches that broke ApacheDS while entries were added and deleted, run on the directory with
 * 20 really concurrent threads. Each search is checked against a clock of completed operations:
 * an entry whose add finished before the search began and whose delete had not begun when it ended
 * must be found; an entry whose delete finished before the search began must not be; every entry
 * returned must be fetched whole and match the filter. Afterwards the integrity check must be clean.
 * Loops: 300 short, 10,000 long ({@code -Dmvbt.profile=long}, or {@code -Dmvbt.dir.race.loops=N}).
 */
class SearchWhileModifyTest {
    private static final int THREADS = 20;
    private static final String SUFFIX = "ou=system";
    private static final String BASE = "ou=users,ou=system";

    @TempDir
    Path dir;

    private static Store open(Path file) {
        return Store.open(file, StoreOptions.defaults().durability(Durability.NORMAL)
                .writeTimeout(Duration.ofMinutes(2)));
    }

    private static Directory directory(Store store) {
        Directory d = Directory.open(store, SUFFIX, Schema.defaults());
        d.add(Entry.builder(SUFFIX).add("objectClass", "organizationalUnit").build());
        d.add(Entry.builder(BASE).add("objectClass", "organizationalUnit").build());
        // Entries outside the base that match the filter: the scope must keep them out.
        d.add(Entry.builder("cn=testOutside,ou=system").add("objectClass", "person").build());
        return d;
    }

    /** Start, add-done, delete-start and delete-done ticks per entry, and the checks of one search. */
    private static final class Clock {
        final AtomicLong tick = new AtomicLong();
        final AtomicLongArray added;
        final AtomicLongArray deleteStarted;
        final AtomicLongArray deleted;
        /** The latest entry each thread added. */
        final AtomicIntegerArray latest = new AtomicIntegerArray(THREADS);

        Clock(int entries) {
            added = new AtomicLongArray(entries);
            deleteStarted = new AtomicLongArray(entries);
            deleted = new AtomicLongArray(entries);
        }

        long now() {
            return tick.incrementAndGet();
        }
    }

    @Test
    void twentyThreadsAddSearchAndDeleteWithoutAnError() throws Exception {
        int loops = Profile.size("mvbt.dir.race.loops", 300, 10_000);
        try (Store store = open(dir.resolve("race.mvbt"))) {
            Directory d = directory(store);
            Clock clock = new Clock(THREADS * loops);
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong searches = new AtomicLong();
            AtomicLong fetched = new AtomicLong();
            AtomicLong required = new AtomicLong();
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Thread> threads = new ArrayList<>();
            long began = System.nanoTime();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Thread worker = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < loops && failures.size() < 10; i++) {
                            int n = thread * loops + i;
                            String dn = "cn=test" + n + "," + BASE;
                            d.add(Entry.builder(dn).add("objectClass", "person").add("sn", "s" + n).build());
                            clock.latest.set(thread, n);
                            clock.added.set(n, clock.now());
                            long searchStart = clock.now();
                            Set<Integer> found = new HashSet<>();
                            try (SearchResult r = d.search(BASE, SearchScope.SUBTREE, "(cn=test*)")) {
                                long searchEnd = clock.now();
                                try (EntryCursor c = r.cursor()) {
                                    while (c.next()) {
                                        Entry e = c.entry();
                                        fetched.incrementAndGet();
                                        String cn = e.first("cn");
                                        if (cn == null || !cn.startsWith("test") || !e.dn().toString().equals("cn=" + cn + "," + BASE)
                                                || !("s" + cn.substring(4)).equals(e.first("sn"))) {
                                            throw new AssertionError("search returned a wrong entry: " + e);
                                        }
                                        found.add(Integer.parseInt(cn.substring(4)));
                                    }
                                }
                                if (found.size() != r.count()) {
                                    throw new AssertionError("count " + r.count() + " but " + found.size() + " entries");
                                }
                                // Each thread has at most one live entry, its latest; all before it were deleted.
                                for (int t2 = 0; t2 < THREADS; t2++) {
                                    int latest = clock.latest.get(t2);
                                    for (int other = Math.max(t2 * loops, latest - 1); other <= latest; other++) {
                                        long a = clock.added.get(other);
                                        long ds = clock.deleteStarted.get(other);
                                        if (a != 0 && a < searchStart && (ds == 0 || ds > searchEnd)) {
                                            required.incrementAndGet();
                                            if (!found.contains(other)) {
                                                throw new AssertionError("search missed test" + other + " (thread "
                                                        + thread + ")");
                                            }
                                        }
                                    }
                                }
                                for (int other : found) {
                                    long dd = clock.deleted.get(other);
                                    if (dd != 0 && dd < searchStart) {
                                        throw new AssertionError("search returned test" + other + ", deleted before it began");
                                    }
                                }
                            }
                            if (!found.contains(n)) {
                                throw new AssertionError("search missed this thread's own entry test" + n);
                            }
                            searches.incrementAndGet();
                            clock.deleteStarted.set(n, clock.now());
                            d.delete(dn);
                            clock.deleted.set(n, clock.now());
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "race-" + t);
                threads.add(worker);
                worker.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            long millis = (System.nanoTime() - began) / 1_000_000;
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError(failures.size() + " threads failed; first: " + failures.peek());
                failures.forEach(error::addSuppressed);
                throw error;
            }
            assertEquals((long) THREADS * loops, searches.get());
            try (SearchResult r = d.search(SUFFIX, SearchScope.SUBTREE, "(cn=test*)")) {
                assertEquals(1, r.count(), "only the entry outside the base is left");
            }
            assertEquals(0, d.childCount(Dn.parse(BASE)));
            assertEquals(2, d.descendantCount(Dn.parse(SUFFIX)));
            assertTrue(store.check().ok(), store.check().toString());
            System.out.printf("directory race: %d threads x %d loops, %d searches, %d entries fetched, %d required"
                    + " presences checked, 0 failures, %d ms%n", THREADS, loops, searches.get(), fetched.get(),
                    required.get(), millis);
        }
    }

    /**
     * The 2014 report against ApacheDS: each of 20 threads adds 100 entries, searches all of them,
     * deletes its 100, and does it again; every search must return all 100 of the thread's own.
     */
    @Test
    void twentyThreadsAddAHundredSearchAllAndDeleteThemRepeatedly() throws Exception {
        int rounds = Profile.size("mvbt.dir.rounds", 3, 100);
        try (Store store = open(dir.resolve("apacheds.mvbt"))) {
            Directory d = directory(store);
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong entriesSeen = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            CyclicBarrier start = new CyclicBarrier(THREADS);
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Thread worker = new Thread(() -> {
                    try {
                        start.await();
                        for (int round = 0; round < rounds && failures.isEmpty(); round++) {
                            for (int k = 0; k < 100; k++) {
                                d.add(Entry.builder("cn=t" + thread + "-" + k + "," + BASE).add("objectClass", "person")
                                        .add("uid", "t" + thread).build());
                            }
                            try (SearchResult all = d.search(BASE, SearchScope.ONELEVEL, "(objectClass=person)");
                                    SearchResult mine = d.search(BASE, SearchScope.SUBTREE, "(uid=t" + thread + ")")) {
                                if (all.count() < 100) {
                                    throw new AssertionError("search of all found " + all.count() + " < 100 entries");
                                }
                                List<Entry> own = mine.entries();
                                if (own.size() != 100) {
                                    throw new AssertionError("thread " + thread + " found " + own.size() + " of its 100");
                                }
                                entriesSeen.addAndGet(all.entries().size());
                            }
                            for (int k = 0; k < 100; k++) {
                                d.delete("cn=t" + thread + "-" + k + "," + BASE);
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                threads.add(worker);
                worker.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError(failures.size() + " threads failed; first: " + failures.peek());
                failures.forEach(error::addSuppressed);
                throw error;
            }
            assertEquals(0, d.childCount(Dn.parse(BASE)));
            assertTrue(store.check().ok(), store.check().toString());
            System.out.printf("ApacheDS 2014 scenario: %d threads x %d rounds x 100 entries, %d entries read, 0 failures%n",
                    THREADS, rounds, entriesSeen.get());
        }
    }
}
