// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.pagestore.redis.StoreRolledBackException;
import io.mvbt.testkit.RedisServers;

/**
 * A store on Redis never quietly goes back in time: meta slots deleted or put back are refused by
 * any process, and a meta hash restored whole from an older copy by every process that saw a newer
 * one, and by one that is told the newest revision it must find.
 */
class RedisRollbackTest {
    @TempDir
    static Path dir;
    static RedisServers single;
    private static int names;

    @BeforeAll
    static void startRedis() throws Exception {
        single = RedisServers.single(dir.resolve("single"));
    }

    @AfterAll
    static void stopRedis() {
        if (single != null) {
            single.close();
        }
    }

    private static RedisStoreOptions options(boolean sealed) {
        RedisStoreOptions options = RedisStoreOptions.defaults().leaseWait(Duration.ofSeconds(10));
        return sealed ? options.sealWith(RedisOpenChild.sealingKeys()) : options;
    }

    private static Store writer(String name, boolean sealed) {
        return Store.open(RedisPageStore.open(RedisEndpoint.parse(single.address()), name, options(sealed)),
                StoreOptions.defaults().durability(Durability.SYNC));
    }

    private static Store reader(String name, RedisStoreOptions options) {
        return Store.open(RedisPageStore.openReader(RedisEndpoint.parse(single.address()), name, options),
                StoreOptions.defaults());
    }

    /** Commits rounds {@code from} to {@code to - 1}, one key each. */
    private static void commit(Store store, int from, int to) {
        for (int i = from; i < to; i++) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(tx.createTreeIfAbsent("t"), RedisWriterTest.key(i), RedisWriterTest.value(i));
                tx.commit();
            }
        }
    }

    private static RedisClient client() {
        return RedisClient.builder().hostAndPort(HostAndPort.from(single.address())).build();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] metaKey(String name) {
        return bytes("{mvbt:" + name + "}:meta");
    }

    private static Map<String, byte[]> metaHash(String name) {
        try (RedisClient redis = client()) {
            Map<String, byte[]> fields = new HashMap<>();
            redis.hgetAll(metaKey(name)).forEach((f, v) -> fields.put(new String(f, StandardCharsets.UTF_8), v));
            return fields;
        }
    }

    /** The meta slots (fields "0" to "3") that differ between two copies of the meta hash. */
    private static List<String> changedSlots(Map<String, byte[]> before, Map<String, byte[]> after) {
        List<String> changed = new ArrayList<>();
        for (String slot : List.of("0", "1", "2", "3")) {
            if (!java.util.Arrays.equals(before.get(slot), after.get(slot))) {
                changed.add(slot);
            }
        }
        assertTrue(!changed.isEmpty(), "no meta slot changed");
        return changed;
    }

    /** Makes readers fetch the meta slots again, as any change would. */
    private static void bumpPublished(RedisClient redis, String name) {
        redis.hincrBy(metaKey(name), bytes("published"), 1);
    }

    /** What a JVM that never saw the store prints when it opens it. */
    private static String openElsewhere(String name, String mode, boolean sealed, long known) throws Exception {
        return ChildJvm.run(RedisOpenChild.class, RedisEndpoint.parse(single.address()).toString(), name, mode,
                sealed ? "sealed" : "plain", Long.toString(known)).trim();
    }

    private static void assertRefusedAsRollback(String outcome) {
        assertTrue(outcome.startsWith("refused ") && outcome.contains(StoreRolledBackException.class.getName()),
                outcome);
    }

    @ParameterizedTest(name = "sealed {0}")
    @ValueSource(booleans = {false, true})
    void newestMetaSlotsDeletedAreRefusedByAProcessThatNeverSawThem(boolean sealed) throws Exception {
        String name = "rollback-" + (++names);
        Map<String, byte[]> before;
        try (Store store = writer(name, sealed)) {
            commit(store, 0, 5);
            before = metaHash(name);
            commit(store, 5, 6);
        }
        try (RedisClient redis = client()) {
            for (String slot : changedSlots(before, metaHash(name))) {
                redis.hdel(metaKey(name), bytes(slot));
            }
            bumpPublished(redis, name);
        }
        assertRefusedAsRollback(openElsewhere(name, "reader", sealed, -1));
        assertRefusedAsRollback(openElsewhere(name, "writer", sealed, -1));
    }

    @ParameterizedTest(name = "sealed {0}")
    @ValueSource(booleans = {false, true})
    void metaSlotsPutBackFromAnOlderCopyAreRefusedByAProcessThatNeverSawThem(boolean sealed) throws Exception {
        String name = "rollback-" + (++names);
        Map<String, byte[]> older;
        try (Store store = writer(name, sealed)) {
            commit(store, 0, 5);
        }
        older = metaHash(name);
        try (Store store = writer(name, sealed)) {
            commit(store, 5, 10);
        }
        try (RedisClient redis = client()) {
            for (String slot : changedSlots(older, metaHash(name))) {
                redis.hset(metaKey(name), bytes(slot), older.get(slot));
            }
            bumpPublished(redis, name);
        }
        assertRefusedAsRollback(openElsewhere(name, "reader", sealed, -1));
        assertRefusedAsRollback(openElsewhere(name, "writer", sealed, -1));
    }

    /**
     * The whole meta hash put back from an older copy is consistent: only a process that saw a
     * newer meta (a reader following, a reader or writer opened again in it) or is told the
     * revision it must find can tell, and each refuses it.
     */
    @Test
    void aWholeMetaHashRestoredFromAnOlderCopyIsRefusedByEveryProcessThatKnowsANewerOne() throws Exception {
        String name = "rollback-" + (++names);
        Map<String, byte[]> older;
        long newest;
        try (Store store = writer(name, false)) {
            commit(store, 0, 5);
            older = metaHash(name);
            commit(store, 5, 10);
            newest = store.revision();
        }
        try (Store following = reader(name, options(false))) {
            try (Snapshot s = following.beginRead()) {
                assertEquals(newest, s.revision());
            }
            try (RedisClient redis = client()) {
                redis.del(metaKey(name));
                older.forEach((field, value) -> redis.hset(metaKey(name), bytes(field), value));
                bumpPublished(redis, name);
            }
            StoreRolledBackException refused = assertThrows(StoreRolledBackException.class, following::beginRead);
            assertTrue(refused.getMessage().contains(name) && refused.getMessage().contains(Long.toString(newest)),
                    refused.getMessage());
        }
        assertThrows(StoreRolledBackException.class, () -> reader(name, options(false)).close());
        assertThrows(StoreRolledBackException.class, () -> writer(name, false).close());
        // A process that never saw the newer meta cannot tell, unless it is told.
        String unaware = openElsewhere(name, "reader", false, -1);
        assertTrue(unaware.startsWith("opened ") && Long.parseLong(unaware.substring(7)) < newest, unaware);
        assertRefusedAsRollback(openElsewhere(name, "reader", false, newest));
        assertRefusedAsRollback(openElsewhere(name, "writer", false, newest));
    }
}
