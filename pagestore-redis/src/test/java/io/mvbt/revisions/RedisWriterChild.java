package io.mvbt.revisions;

import java.time.Duration;

import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * A writer in its own JVM for {@link RedisWriterTest}: commits key i = value i, one SYNC commit
 * each, and prints "committed i" once each commit returned, until it is killed.
 * Arguments: endpoint, store name, lease milliseconds.
 */
public final class RedisWriterChild {
    public static void main(String[] args) {
        RedisStoreOptions options = RedisStoreOptions.defaults()
                .leaseTime(Duration.ofMillis(Long.parseLong(args[2])));
        try (Store store = Store.open(RedisPageStore.open(RedisEndpoint.parse(args[0]), args[1], options),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            for (int i = 0; ; i++) {
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
