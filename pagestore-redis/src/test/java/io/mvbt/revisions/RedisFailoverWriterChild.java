// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.time.Duration;

import io.mvbt.MvbtException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * A SYNC writer in its own JVM for {@link RedisFailoverTest}: commits key i = value i, one commit
 * each, and prints "committed i MICROS" once each commit returned (with how long it took). A
 * commit that fails is printed as "failed EXCEPTION", and the store is reopened ("reopened") to go
 * on from the same key, as an application would. Arguments: endpoint, store name, replicas each
 * sync waits for, failover wait in milliseconds, and the first key (0 if left out).
 */
public final class RedisFailoverWriterChild {
    public static void main(String[] args) {
        RedisStoreOptions options = RedisStoreOptions.defaults().leaseWait(Duration.ofSeconds(30))
                .syncReplicas(Integer.parseInt(args[2]), Duration.ofMillis(500))
                .failoverWait(Duration.ofMillis(Long.parseLong(args[3])));
        int first = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        int i = first;
        while (true) {
            try (Store store = Store.open(RedisPageStore.open(RedisEndpoint.parse(args[0]), args[1], options),
                    StoreOptions.defaults().durability(Durability.SYNC))) {
                System.out.println(i == first ? "leased" : "reopened");
                for (; ; i++) {
                    long start = System.nanoTime();
                    try (WriteTxn tx = store.beginWrite()) {
                        tx.put(tx.createTreeIfAbsent("t"), RedisWriterTest.key(i), RedisWriterTest.value(i));
                        tx.commit();
                    }
                    System.out.println("committed " + i + " " + (System.nanoTime() - start) / 1000);
                }
            } catch (MvbtException e) {
                System.out.println("failed " + e.toString().replace('\n', ' '));
            }
        }
    }
}
