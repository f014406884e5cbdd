// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.time.Duration;

import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * A writer in its own JVM for {@link RedisWriterTest}: once it holds the lease it prints "leased",
 * then commits key i = value i from the first key on, one SYNC commit each, and prints
 * "committed i" once each commit returned, until it is killed. Arguments: endpoint, store name,
 * lease milliseconds, milliseconds to wait for another writer's lease, first key.
 */
public final class RedisWriterChild {
    public static void main(String[] args) {
        RedisStoreOptions options = RedisStoreOptions.defaults()
                .leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
                .leaseWait(Duration.ofMillis(Long.parseLong(args[3])));
        try (Store store = Store.open(RedisPageStore.open(RedisEndpoint.parse(args[0]), args[1], options),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            System.out.println("leased");
            System.out.flush();
            for (int i = Integer.parseInt(args[4]); ; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    tx.put(t, RedisWriterTest.key(i), RedisWriterTest.value(i));
                    tx.commit();
                }
                System.out.println("committed " + i);
                System.out.flush();
            }
        }
    }
}
