// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

import io.mvbt.bench.KvStore;
import io.mvbt.bench.SyncMode;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.revisions.Store;
import io.mvbt.testkit.RedisServers;

/**
 * mvbt with its pages on Redis ({@code mvbt-pagestore-redis}), against a redis-server the peer
 * starts for itself on loopback, in memory: the same engine and API as {@link MvbtPeer}, so the
 * ratio between the two is what the remote page store costs. The footprint is Redis's dataset memory.
 */
final class MvbtRedisPeer {
    private MvbtRedisPeer() {
    }

    static KvStore open(Path dir, SyncMode mode) {
        RedisServers server;
        try {
            server = RedisServers.single(dir, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        try {
            Store store = Store.open(RedisPageStore.open(RedisEndpoint.parse(server.address()), "bench",
                    RedisStoreOptions.defaults()), MvbtPeer.options(mode));
            return new MvbtPeer(store, server::datasetBytes, server::close);
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    static String settings(SyncMode mode) {
        return (mode == SyncMode.SYNC ? "Durability.SYNC (the pages and the meta sent to Redis per commit)"
                : "Durability.NORMAL (pages sent to Redis by the checkpoint every 5 s or 256 MiB)")
                + ", 4 KiB pages, one redis-server 7 on loopback, in memory; footprint is Redis's dataset memory";
    }
}
