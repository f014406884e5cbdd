// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Response;

import io.mvbt.testkit.RedisServers;

/** The node a {@code WAIT} covers is the node the write went to, even if the slot map changes meanwhile. */
class BatchesTest {
    @TempDir
    static Path dir;
    static RedisServers single;

    @BeforeAll
    static void startRedis() throws Exception {
        single = RedisServers.single(dir.resolve("single"), false);
    }

    @AfterAll
    static void stopRedis() {
        if (single != null) {
            single.close();
        }
    }

    /**
     * The slot map learned anew right after a SET was queued (a failover, learned of by another
     * thread): the SET may have gone to the old node, so a {@code WAIT} routed to the new one
     * could not cover it; the batch fails as a node away instead of waiting there.
     */
    @Test
    void aSlotMovedWhileACommandIsQueuedFailsTheBatch() {
        HostAndPort before = new HostAndPort("10.0.0.1", 7000);
        HostAndPort after = new HostAndPort("10.0.0.2", 7000);
        AtomicBoolean refreshed = new AtomicBoolean();
        byte[] key = "batches-test".getBytes(StandardCharsets.UTF_8);
        try (RedisNodes nodes = RedisEndpoint.parse(single.address()).connect(Duration.ofSeconds(5));
                Batches batches = new Batches(nodes.client.pipelined(), k -> refreshed.get() ? after : before,
                        "send pages", "store 't' on test", 1, 100, (what, k, e) -> e)) {
            batches.queue(key, p -> {
                Response<String> sent = p.set(key, key);
                // Routed by the old map; the new one is learned right after.
                refreshed.set(true);
                return sent;
            });
            RedisUnavailableException e = assertThrows(RedisUnavailableException.class, batches::finish);
            assertTrue(e.getMessage().contains("moved the slot"), e.getMessage());
        }
    }
}
