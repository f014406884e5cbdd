// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.testkit.RedisServers;

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

    /** With the smallest page cache (64 pages), so that the writer evicts pages and reads them back throughout. */
    @Test
    void aSmallPageCacheMatchesTheModel() {
        AtomicLong evicted = new AtomicLong();
        ModelTest.run(new ModelHarness(on(single, "one Redis server, 256 KiB cache", 256 << 10, evicted), 4096),
                Integer.getInteger("mvbt.seeds", 4));
        assertTrue(evicted.get() > 0, "no page was evicted");
    }

    private static ModelHarness.Storage on(RedisServers servers, String what) {
        return on(servers, what, RedisStoreOptions.defaults().cacheBytes(), new AtomicLong());
    }

    /** Stores of {@code cacheBytes} of local pages; {@code evicted} counts the evictions of every store closed. */
    private static ModelHarness.Storage on(RedisServers servers, String what, long cacheBytes, AtomicLong evicted) {
        return new ModelHarness.Storage() {
            /** The store opened last, for its count once it is closed (no more: each keeps its memory while reachable). */
            private RedisPageStore last;

            @Override
            public Store open(Path dir, StoreOptions options) {
                if (last != null) {
                    evicted.addAndGet(last.evictedPages());
                }
                RedisStoreOptions redis = RedisStoreOptions.defaults().pageSize(options.pageSize()).cacheBytes(cacheBytes);
                last = RedisPageStore.open(RedisEndpoint.parse(servers.address()), dir.getFileName().toString(), redis);
                return Store.open(last, options);
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
