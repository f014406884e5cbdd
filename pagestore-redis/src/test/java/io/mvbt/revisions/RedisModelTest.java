package io.mvbt.revisions;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisServers;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * The engine's model-based test (see {@link ModelHarness}) with its pages on Redis: one server, and
 * a cluster of three masters. Every run gets a store of its own name; reopening takes the lease
 * again and reads the pages back from Redis. Replay a seed with {@code -Dmvbt.seed=N}.
 */
class RedisModelTest extends RedisTestServers {
    @Test
    void oneRedisServerMatchesTheModel() {
        ModelTest.run(new ModelHarness(on(single, "one Redis server"), 4096), Integer.getInteger("mvbt.seeds", 8));
    }

    @Test
    void redisClusterMatchesTheModel() {
        ModelTest.run(new ModelHarness(on(cluster, "a 3-master Redis Cluster"), 4096), Integer.getInteger("mvbt.seeds", 4));
    }

    private static ModelHarness.Storage on(RedisServers servers, String what) {
        return new ModelHarness.Storage() {
            @Override
            public Store open(Path dir, StoreOptions options) {
                RedisStoreOptions redis = RedisStoreOptions.defaults().pageSize(options.pageSize());
                return Store.open(RedisPageStore.open(servers.endpoint(), dir.getFileName().toString(), redis), options);
            }

            @Override
            public boolean durable() {
                return true;
            }

            @Override
            public String describe() {
                return what;
            }
        };
    }
}
