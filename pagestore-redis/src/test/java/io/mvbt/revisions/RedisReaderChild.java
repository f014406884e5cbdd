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
 * "checked SNAPSHOTS ROUNDS ERRORS" with the first error, if any, on the next line.
 */
public final class RedisReaderChild {
    public static void main(String[] args) throws Exception {
        RedisStoreOptions options = RedisStoreOptions.defaults()
                .readerLease(Duration.ofMillis(Long.parseLong(args[2])));
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
}
