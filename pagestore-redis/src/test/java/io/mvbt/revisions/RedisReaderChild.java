// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.time.Duration;

import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * A reader in its own JVM for {@link RedisReaderTest}. Arguments: endpoint, store name, reader
 * lease milliseconds, mode, seconds. Mode "hold" opens one snapshot, prints
 * "holding REVISION" and waits to be killed; mode "check" opens snapshots for the given seconds,
 * checks that each sees one whole round of the writer, and prints
 * "checked SNAPSHOTS ROUNDS ERRORS" with the first error, if any, on the next line. Mode "prefix"
 * follows a writer that commits key i = value i in order ({@link RedisFailoverWriterChild}) until
 * it is killed: each snapshot must hold keys 0 to n - 1 exactly, for an n that never goes back;
 * it prints "prefix SNAPSHOTS LARGEST-N VIOLATIONS FAILURES FIRST-PROBLEM" every half second
 * (a sixth argument: how many replicas its registrations wait for; a seventh: a file to which it
 * appends "END-EPOCH-MS MICROS OK" for every snapshot, OK 1 if it was whole and 0 if not or failed)
 * (a failure is an exception, such as a node away; a violation is a wrong snapshot).
 */
public final class RedisReaderChild {
    public static void main(String[] args) throws Exception {
        // Pages are kept off the heap, within the JVM's direct memory, which -Xmx128m (ChildJvm) bounds too:
        // the default budget of 1 GiB let a reader following a long run fill it and die.
        RedisStoreOptions options = RedisStoreOptions.defaults()
                .readerLease(Duration.ofMillis(Long.parseLong(args[2]))).cacheBytes(32L << 20);
        if (args[3].equals("prefix")) {
            // Args[5]: the replicas its registrations wait for.
            try (java.io.PrintWriter samples = new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(
                    java.nio.file.Path.of(args[6])))) {
                checkPrefixes(RedisEndpoint.parse(args[0]), args[1], options.syncReplicas(Integer.parseInt(args[5]),
                        Duration.ofMillis(500)), samples);
            }
        }
        try (Store store = Store.open(RedisPageStore.openReader(RedisEndpoint.parse(args[0]), args[1], options),
                StoreOptions.defaults())) {
            if (args[3].equals("hold")) {
                Snapshot s = store.beginRead();
                System.out.println("holding " + s.revision());
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            long end = System.nanoTime() + Long.parseLong(args[4]) * 1_000_000_000L;
            long snapshots = 0;
            long errors = 0;
            String firstError = "";
            java.util.Set<Integer> rounds = new java.util.HashSet<>();
            while (System.nanoTime() < end) {
                try (Snapshot s = store.beginRead()) {
                    String problem = RedisReaderTest.checkRound(s, store.tree("t"));
                    if (problem.startsWith("round ")) {
                        rounds.add(Integer.parseInt(problem.substring("round ".length())));
                    } else {
                        if (errors++ == 0) {
                            firstError = "revision " + s.revision() + ": " + problem;
                        }
                    }
                } catch (RuntimeException e) {
                    if (errors++ == 0) {
                        firstError = e.toString();
                    }
                }
                snapshots++;
            }
            System.out.println("checked " + snapshots + " " + rounds.size() + " " + errors);
            System.out.println(firstError);
        }
    }

    /** Opens the store, again after a failure to (a node away), then checks snapshots until killed. */
    private static void checkPrefixes(RedisEndpoint endpoint, String name, RedisStoreOptions options,
            java.io.PrintWriter samples) throws InterruptedException {
        while (true) {
            Store store;
            try {
                store = Store.open(RedisPageStore.openReader(endpoint, name, options), StoreOptions.defaults());
            } catch (RuntimeException e) {
                System.out.println("open failed " + e.toString().replace('\n', ' '));
                Thread.sleep(100);
                continue;
            }
            checkPrefixes(store, samples);
        }
    }

    private static void checkPrefixes(Store store, java.io.PrintWriter samples) {
        long snapshots = 0;
        long violations = 0;
        long failures = 0;
        int largest = 0;
        String first = "-";
        long report = System.nanoTime();
        while (true) {
            String problem = null;
            long start = System.nanoTime();
            try (Snapshot s = store.beginRead()) {
                Tree t = store.tree("t");
                int n = 0;
                if (s.hasTree(t)) {
                    try (Cursor c = s.cursor(t)) {
                        for (boolean more = c.first(); more; more = c.next(), n++) {
                            if (!java.util.Arrays.equals(c.keyBytes(), RedisWriterTest.key(n))
                                    || !java.util.Arrays.equals(c.valueBytes(), RedisWriterTest.value(n))) {
                                problem = "revision " + s.revision() + " lacks key " + n + " or holds another";
                                break;
                            }
                        }
                    }
                }
                if (problem == null && n < largest) {
                    problem = "revision " + s.revision() + " holds " + n + " keys after one held " + largest;
                }
                largest = Math.max(largest, n);
                if (problem != null) {
                    violations++;
                }
            } catch (RuntimeException e) {
                failures++;
                problem = e.toString().replace('\n', ' ');
            }
            if (problem != null && first.equals("-")) {
                first = problem;
            }
            snapshots++;
            samples.println(System.currentTimeMillis() + " " + (System.nanoTime() - start) / 1000 + " "
                    + (problem == null ? 1 : 0));
            if (System.nanoTime() - report > 500_000_000L) {
                report = System.nanoTime();
                samples.flush();
                System.out.println("prefix " + snapshots + " " + largest + " " + violations + " " + failures + " " + first);
                System.out.flush();
            }
        }
    }
}
