// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * A named revision of a store on Redis, whose freed pages are deleted rather than reused: kept
 * while later commits free what it reaches, across a new writer session (whose revisions start far
 * above the old ones), and readable until released.
 */
class RedisNamedRevisionsTest extends RedisTestServers {
    private static final int KEYS = 500;

    private static Store open(String name) {
        return Store.open(RedisPageStore.open(RedisEndpoint.parse(single.address()), name, RedisStoreOptions.defaults()),
                StoreOptions.defaults().durability(Durability.SYNC).checked(true));
    }

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int round) {
        return ("value-" + i + "-" + round + "-" + "v".repeat(i % 60)).getBytes(StandardCharsets.UTF_8);
    }

    private static void writeAll(Store store, int round) {
        store.update(tx -> {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), value(i, round));
            }
        });
    }

    private static void assertRound(Store store, Snapshot s, int round) {
        Tree t = store.tree("t");
        assertEquals(KEYS, s.count(t));
        for (int i = 0; i < KEYS; i += 7) {
            assertArrayEquals(value(i, round), s.get(t, key(i)), "key " + i + " of revision " + s.revision());
        }
    }

    @Test
    void aNamedRevisionOutlivesItsWriterSession() {
        long named;
        try (Store store = open("named-test")) {
            writeAll(store, 0);
            named = store.retain("r");
            for (int round = 1; round <= 3; round++) {
                writeAll(store, round);
            }
            try (Snapshot s = store.beginRead("r")) {
                assertRound(store, s, 0);
            }
        }
        try (Store store = open("named-test")) {
            writeAll(store, 4);
            try (Snapshot s = store.beginRead(named)) {
                assertRound(store, s, 0);
            }
            assertTrue(store.check().ok(), store.check().problems().toString());
            store.release("r");
            writeAll(store, 5);
            assertTrue(store.check().ok(), store.check().problems().toString());
            assertEquals(0, store.namedRevisions().size());
        }
    }
}
