// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.MvbtException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.pagestore.redis.RedisUnavailableException;
import io.mvbt.testkit.RedisServers;

/**
 * Syncs that wait for replicas ({@link RedisStoreOptions#syncReplicas}) on a cluster of three
 * masters with a replica each: a replica that hangs holds a sync back, on the node that holds the
 * meta and on one that holds only pages, until the store gives up with an exception that names the
 * node; without the option the same syncs return.
 */
class RedisReplicaTest {
    @TempDir
    static Path dir;
    static RedisServers cluster;
    private static int names;

    @BeforeAll
    static void startRedis() throws Exception {
        cluster = RedisServers.cluster(dir.resolve("replicated"), 3, 1, true,
                new RedisServers.Setup(List.of("--appendfsync", "everysec"), List.of(), false));
    }

    @AfterAll
    static void stopRedis() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static RedisStoreOptions replicated(int replicas) {
        return RedisStoreOptions.defaults().syncReplicas(replicas, Duration.ofMillis(300))
                .failoverWait(Duration.ofMillis(1500)).leaseWait(Duration.ofSeconds(15));
    }

    private static Store open(String name, RedisStoreOptions options) {
        return Store.open(RedisPageStore.open(RedisEndpoint.parse(cluster.address()), name, options),
                StoreOptions.defaults().durability(Durability.SYNC));
    }

    /** Commits keys {@code from} to {@code to}, 2 KiB values, so that the pages land on every node. */
    private static void fill(Store store, int from, int to) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = from; i < to; i++) {
                tx.put(t, RedisWriterTest.key(i), value(i));
            }
            tx.commit();
        }
    }

    private static byte[] value(int i) {
        byte[] v = new byte[2048];
        java.util.Arrays.fill(v, (byte) i);
        return v;
    }

    private static String metaKey(String name) {
        return "{mvbt:" + name + "}:meta";
    }

    @Test
    void aHungReplicaOfTheMetasNodeHoldsTheSyncBackUntilItGivesUp() throws Exception {
        hungReplicaHoldsSyncsBack(true);
    }

    @Test
    void aHungReplicaOfANodeWithPagesOnlyHoldsTheSyncBackUntilItGivesUp() throws Exception {
        hungReplicaHoldsSyncsBack(false);
    }

    private void hungReplicaHoldsSyncsBack(boolean metaNode) throws Exception {
        String name = "replica-test-" + (++names);
        RedisServers.Node metaPrimary = cluster.primaryOf(metaKey(name));
        RedisServers.Node primary = metaNode ? metaPrimary
                : cluster.nodes().stream().filter(n -> n != metaPrimary && n.alive()).filter(n -> {
                    try {
                        return !cluster.replicasOf(n).isEmpty();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }).findFirst().orElseThrow();
        RedisServers.Node replica = cluster.replicasOf(primary).get(0);
        try (Store store = open(name, replicated(1))) {
            fill(store, 0, 200);
            replica.pause();
            try {
                MvbtException e = assertThrows(MvbtException.class, () -> fill(store, 200, 400));
                RedisUnavailableException cause = find(e);
                assertNotNull(cause, () -> "no RedisUnavailableException in " + e);
                assertEquals("127.0.0.1:" + primary.port(), cause.node(), cause.getMessage());
                assertTrue(cause.getMessage().contains("0 of the 1 replicas") && cause.getMessage().contains(name),
                        cause.getMessage());
            } finally {
                replica.resume();
            }
        } catch (MvbtException e) {
            // Closing a failed store reports its failure; what was synced before stays.
        }
        cluster.awaitReplicasInSync();
        try (Store store = open(name, replicated(1))) {
            try (Snapshot s = store.beginRead()) {
                for (int i = 0; i < 200; i++) {
                    assertArrayEquals(value(i), s.get(store.tree("t"), RedisWriterTest.key(i)), "synced key " + i);
                }
            }
            store.check().throwIfDamaged();
            fill(store, 200, 400);
        }
    }

    @Test
    void withoutTheOptionASyncDoesNotWaitForAHungReplica() throws Exception {
        String name = "replica-test-" + (++names);
        RedisServers.Node replica = cluster.replicasOf(cluster.primaryOf(metaKey(name))).get(0);
        try (Store store = open(name, replicated(0))) {
            fill(store, 0, 100);
            replica.pause();
            try {
                fill(store, 100, 300);
            } finally {
                replica.resume();
            }
        }
        cluster.awaitReplicasInSync();
    }

    private static RedisUnavailableException find(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RedisUnavailableException u) {
                return u;
            }
        }
        return null;
    }
}
