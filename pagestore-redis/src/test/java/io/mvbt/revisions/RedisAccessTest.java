// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvbt.MvbtException;
import io.mvbt.pagestore.redis.RedisAccessException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.pagestore.redis.RedisUnavailableException;
import io.mvbt.pagestore.redis.SealingKeys;
import io.mvbt.testkit.RedisServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores on a Redis that requires credentials: ACL users with the least privilege docs/redis.md
 * gives for a store's writer and its readers, and the legacy requirepass.
 */
class RedisAccessTest {
    private static final String WRITER_A = "writer-a-secret";
    private static final String READER_A = "reader-a-secret";
    private static final String WRITER_B = "writer-b-secret";
    /** A password with every character a URI reserves. */
    private static final String ODD = "p@ss:w/rd%+1?#";
    /** The rules of docs/redis.md, for stores "a" and "b" (Redis 7.0 has no CLIENT SETINFO to allow). */
    private static final String WRITER_COMMANDS = " resetchannels -@all +eval +get +set +del +pttl +pexpire +scan +hget"
            + " +hgetall +hset +hsetnx +hincrby +hdel +time +wait +ping +asking +client|setname +cluster|slots";
    private static final String READER_COMMANDS = " resetchannels -@all +eval +get +hget +hgetall +hexists +exists"
            + " +hset +hdel +time +wait +role +ping +asking +client|setname +cluster|slots";
    private static final String ACL = String.join("\n",
            "user default off",
            "user admin on >admin-secret ~* &* +@all",
            "user writer-a on >" + WRITER_A + " resetkeys ~mvbt:a:p:* ~{mvbt:a}:*" + WRITER_COMMANDS,
            "user reader-a on >" + READER_A + " resetkeys %R~mvbt:a:p:* %R~{mvbt:a}:meta ~{mvbt:a}:readers"
                    + READER_COMMANDS,
            "user writer-b on >" + WRITER_B + " resetkeys ~mvbt:b:p:* ~{mvbt:b}:*" + WRITER_COMMANDS,
            "user odd on >" + ODD + " resetkeys ~mvbt:odd:p:* ~{mvbt:odd}:*" + WRITER_COMMANDS,
            "user writer-s on >" + WRITER_B + " resetkeys ~mvbt:s:p:* ~{mvbt:s}:*" + WRITER_COMMANDS,
            "");

    @TempDir
    static Path dir;
    private static RedisServers acl;
    private static RedisServers legacy;
    private static RedisServers aclCluster;

    @BeforeAll
    static void startRedis() throws Exception {
        Path file = dir.resolve("users.acl");
        Files.writeString(file, ACL);
        acl = RedisServers.single(dir.resolve("acl"), true, new RedisServers.Setup(List.of("--aclfile", file.toString()),
                List.of("--user", "admin", "--pass", "admin-secret", "--no-auth-warning"), false));
        aclCluster = RedisServers.cluster(dir.resolve("acl-cluster"), 3, true, new RedisServers.Setup(
                List.of("--aclfile", file.toString()),
                List.of("--user", "admin", "--pass", "admin-secret", "--no-auth-warning"), false));
        legacy = RedisServers.single(dir.resolve("legacy"), true, new RedisServers.Setup(
                List.of("--requirepass", "legacy-secret"), List.of("-a", "legacy-secret", "--no-auth-warning"), false));
    }

    @AfterAll
    static void stopRedis() {
        if (acl != null) {
            acl.close();
        }
        if (legacy != null) {
            legacy.close();
        }
        if (aclCluster != null) {
            aclCluster.close();
        }
    }

    private static RedisEndpoint as(RedisServers servers, String user, String password) {
        String address = servers.address();
        boolean cluster = address.startsWith("cluster:");
        return RedisEndpoint.parse((cluster ? "cluster:" : "") + "redis://" + (user == null ? "" : user) + ":"
                + password + "@" + (cluster ? address.substring("cluster:".length()) : address));
    }

    private static RedisStoreOptions options() {
        return RedisStoreOptions.defaults().leaseWait(Duration.ofSeconds(2));
    }

    private static Store writer(RedisEndpoint endpoint, String name) {
        return Store.open(RedisPageStore.open(endpoint, name, options()), StoreOptions.defaults().durability(Durability.SYNC));
    }

    private static void fill(Store store, int from, int to) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = from; i < to; i++) {
                tx.put(t, key(i), ("value " + i).getBytes(StandardCharsets.UTF_8));
            }
            tx.commit();
        }
    }

    private static byte[] key(int i) {
        return String.format("k%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static long count(Store store) {
        try (Snapshot s = store.beginRead()) {
            return s.count(store.tree("t"));
        }
    }

    @Test
    void theRightCredentialsOpenTheStore() {
        try (Store store = writer(as(acl, "writer-a", WRITER_A), "a")) {
            fill(store, 0, 500);
        }
        try (Store store = writer(as(acl, "writer-a", WRITER_A), "a")) {
            assertTrue(count(store) >= 500);
        }
        try (Store store = writer(as(legacy, null, "legacy-secret"), "legacy")) {
            fill(store, 0, 100);
            assertEquals(100, count(store), "the legacy requirepass, as redis://:password@host:port");
        }
        try (Store store = writer(RedisEndpoint.parse(legacy.address()).withPassword("legacy-secret"), "legacy")) {
            assertEquals(100, count(store), "and as withPassword");
        }
        String encoded = java.net.URLEncoder.encode(ODD, StandardCharsets.UTF_8);
        try (Store store = writer(RedisEndpoint.parse("redis://odd:" + encoded + "@" + acl.address()), "odd")) {
            fill(store, 0, 5);
            assertEquals(5, count(store), "a percent-encoded password reaches Redis decoded");
        }
    }

    /** Sealing (its salt and nonce scripts) and WAIT are within the writer's rules. */
    @Test
    void aSealedStoreWaitingForReplicasWorksUnderTheWritersRules() {
        SealingKeys keys = SealingKeys.of("k", new javax.crypto.spec.SecretKeySpec(new byte[16], "AES"));
        RedisStoreOptions sealed = options().sealWith(keys);
        try (Store store = Store.open(RedisPageStore.open(as(acl, "writer-s", WRITER_B), "s", sealed),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            fill(store, 0, 200);
        }
        try (Store store = Store.open(RedisPageStore.open(as(acl, "writer-s", WRITER_B), "s", sealed),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            assertEquals(200, count(store));
        }
        // The server has no replica: WAIT is allowed and answers 0, so the sync fails for want of one, not of rights.
        RedisStoreOptions waiting = sealed.syncReplicas(1, Duration.ofMillis(50)).failoverWait(Duration.ZERO);
        try (Store store = Store.open(RedisPageStore.open(as(acl, "writer-s", WRITER_B), "s", waiting),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            MvbtException e = assertThrows(MvbtException.class, () -> fill(store, 200, 210));
            assertInstanceOf(RedisUnavailableException.class, e.getCause(), e.toString());
        } catch (MvbtException closing) {
            // The failed store reports its failure at close.
        }
    }

    @Test
    void theWritersLeaseIsRenewedUnderItsRules() throws Exception {
        RedisStoreOptions shortLease = options().leaseTime(Duration.ofMillis(900));
        try (Store store = Store.open(RedisPageStore.open(as(acl, "writer-a", WRITER_A), "a", shortLease),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            fill(store, 0, 10);
            Thread.sleep(2_000); // past two lease times: only renewals keep it
            fill(store, 10, 20);
            assertTrue(count(store) >= 20);
        }
    }

    @Test
    void theSameRulesServeACluster() throws Exception {
        try (Store writer = writer(as(aclCluster, "writer-a", WRITER_A), "a")) {
            fill(writer, 0, 2000);
            try (Store reader = Store.open(RedisPageStore.openReader(as(aclCluster, "reader-a", READER_A), "a", options()),
                    StoreOptions.defaults())) {
                assertEquals(2000, count(reader));
            }
            assertThrows(RedisAccessException.class,
                    () -> RedisPageStore.open(as(aclCluster, "reader-a", READER_A), "a", options()));
            assertThrows(RedisAccessException.class,
                    () -> RedisPageStore.open(as(aclCluster, "writer-b", WRITER_B), "a", options()));
            RedisAccessException wrong = assertThrows(RedisAccessException.class,
                    () -> RedisPageStore.open(as(aclCluster, "writer-a", "not-the-secret-7f3a"), "a", options()));
            assertFalse(wrong.getMessage().contains("not-the-secret-7f3a"), wrong.getMessage());
            assertThrows(RedisAccessException.class,
                    () -> RedisPageStore.openReader(RedisEndpoint.parse(aclCluster.address()), "a", options()));
            assertTrue(writer.check().ok());
        }
    }

    @Test
    void aWrongPasswordFailsAtOpenWithoutShowingIt() {
        String wrong = "not-the-secret-7f3a";
        RedisEndpoint endpoint = as(acl, "writer-a", wrong);
        assertFalse(endpoint.toString().contains(wrong), endpoint.toString());
        RedisAccessException refused = assertThrows(RedisAccessException.class,
                () -> RedisPageStore.open(endpoint, "a", options()));
        assertTrue(refused.getMessage().contains("WRONGPASS"), refused.getMessage());
        assertFalse(refused.getMessage().contains(wrong), refused.getMessage());
        assertThrows(RedisAccessException.class, () -> RedisPageStore.openReader(endpoint, "a", options()));
        RedisAccessException anonymous = assertThrows(RedisAccessException.class,
                () -> RedisPageStore.open(RedisEndpoint.parse(acl.address()), "a", options()));
        assertTrue(anonymous.getMessage().contains("NOAUTH") || anonymous.getMessage().contains("WRONGPASS"),
                anonymous.getMessage());
        assertThrows(RedisAccessException.class,
                () -> RedisPageStore.open(RedisEndpoint.parse(legacy.address()).withPassword(wrong), "legacy", options()));
        assertThrows(RedisAccessException.class,
                () -> RedisPageStore.open(RedisEndpoint.parse(legacy.address()), "legacy", options()));
    }

    @Test
    void aUserOfAnotherStoreCannotOpenThisOne() {
        try (Store store = writer(as(acl, "writer-a", WRITER_A), "a")) {
            fill(store, 0, 300);
        }
        RedisEndpoint other = as(acl, "writer-b", WRITER_B);
        RedisAccessException refused = assertThrows(RedisAccessException.class,
                () -> RedisPageStore.open(other, "a", options()));
        assertTrue(refused.getMessage().contains("NOPERM"), refused.getMessage());
        assertThrows(RedisAccessException.class, () -> RedisPageStore.openReader(other, "a", options()));
        try (Store own = writer(other, "b")) {
            fill(own, 0, 10);
            assertEquals(10, count(own), "its own store it may use");
        }
        try (Store store = writer(as(acl, "writer-a", WRITER_A), "a")) {
            assertTrue(count(store) >= 300, "store a is intact");
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void aReaderReadsTheWholeStoreAndCannotWriteIt() throws Exception {
        try (Store writer = writer(as(acl, "writer-a", WRITER_A), "a")) {
            fill(writer, 0, 1000);
            RedisEndpoint reading = as(acl, "reader-a", READER_A);
            try (Store reader = Store.open(RedisPageStore.openReader(reading, "a", options()), StoreOptions.defaults())) {
                assertEquals(count(writer), count(reader), "every page of the store");
                fill(writer, 1000, 1100);
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (count(reader) != count(writer) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(count(writer), count(reader), "and follows the writer");
            }
            RedisAccessException refused = assertThrows(RedisAccessException.class,
                    () -> RedisPageStore.open(reading, "a", options().leaseWait(Duration.ZERO)));
            assertTrue(refused.getMessage().contains("NOPERM"), refused.getMessage());
            String page = acl.cli("--user", "reader-a", "--pass", READER_A, "SET", "mvbt:a:p:5", "garbage");
            assertTrue(page.contains("NOPERM"), "a reader's credentials write no page: " + page);
            String meta = acl.cli("--user", "reader-a", "--pass", READER_A, "HSET", "{mvbt:a}:meta", "pageCount", "1");
            assertTrue(meta.contains("NOPERM"), "nor switch the meta: " + meta);
            String script = acl.cli("--user", "reader-a", "--pass", READER_A, "EVAL",
                    "redis.call('HSET', ARGV[1], 'pageCount', '1') return 1", "1", "{mvbt:a}:readers", "{mvbt:a}:meta");
            assertFalse(script.trim().equals("1"), "nor through a script that names the meta as an argument: " + script);
            String functions = acl.cli("--user", "reader-a", "--pass", READER_A, "FUNCTION", "FLUSH");
            assertTrue(functions.contains("NOPERM"), "nor touch the server's other tenants: " + functions);
            fill(writer, 1100, 1200);
            assertTrue(writer.check().ok(), "the store is intact");
        }
    }
}
