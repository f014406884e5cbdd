// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.mvbt.CorruptionException;
import io.mvbt.MvbtException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.pagestore.redis.SealingKeys;
import io.mvbt.testkit.RedisServers;

/**
 * A writer whose lease was taken over sends pages with the page numbers its successor uses (the
 * reservation that kept them apart was lost, as a failover without {@code syncReplicas} may lose
 * it): what readers read is then the successor's data or a refusal, never the stale writer's pages.
 * On one server and on a cluster of three masters with a replica each, sealed and not.
 */
class RedisFencingTest {
    private static final byte[] X = "x".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BIG = "big".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path dir;
    static RedisServers single;
    static RedisServers replicated;
    private static int names;

    @BeforeAll
    static void startRedis() throws Exception {
        single = RedisServers.single(dir.resolve("single"));
        replicated = RedisServers.cluster(dir.resolve("replicated"), 3, 1, false, RedisServers.Setup.PLAIN);
    }

    @AfterAll
    static void stopRedis() {
        if (single != null) {
            single.close();
        }
        if (replicated != null) {
            replicated.close();
        }
    }

    /**
     * Round {@code c}: key big holds 10,000 bytes of c (a run of pages), key x holds c. Two writers
     * committing such a round on the same store place the run at the same page number.
     */
    static void commitRound(Store store, char c) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            tx.put(t, BIG, big(c));
            tx.put(t, X, new byte[] {(byte) c});
            tx.commit();
        }
    }

    private static byte[] big(char c) {
        byte[] v = new byte[10_000];
        Arrays.fill(v, (byte) c);
        return v;
    }

    private static RedisStoreOptions options(boolean sealed) {
        RedisStoreOptions options = RedisStoreOptions.defaults().leaseTime(Duration.ofSeconds(60))
                .leaseWait(Duration.ofSeconds(10));
        return sealed ? options.sealWith(SealingKeys.of("k1", new SecretKeySpec(new byte[32], "AES"))) : options;
    }

    private static Store open(RedisServers servers, String name, RedisStoreOptions options) {
        return Store.open(RedisPageStore.open(RedisEndpoint.parse(servers.address()), name, options),
                StoreOptions.defaults().durability(Durability.SYNC));
    }

    /** What a failover may lose, done by hand: the reservation back at the page count, the lease gone. */
    private static void loseReservationAndLease(RedisServers servers, String name) throws Exception {
        String meta = "{mvbt:" + name + "}:meta";
        servers.cli("HSET", meta, "reserved", servers.cli("HGET", meta, "pageCount").trim());
        servers.cli("DEL", "{mvbt:" + name + "}:lease");
    }

    @ParameterizedTest(name = "{0}, sealed {1}")
    @CsvSource({"single, false", "single, true", "replicated, false", "replicated, true"})
    void aStaleWritersPagesAreNeverReadAsItsSuccessorsData(String where, boolean sealed) throws Exception {
        RedisServers servers = where.equals("single") ? single : replicated;
        String name = "fence-" + (++names);
        Store stale = open(servers, name, options(sealed));
        try {
            commitRound(stale, 'a');
            loseReservationAndLease(servers, name);
            try (Store next = open(servers, name, options(sealed))) {
                commitRound(next, 'B');
                // Its pages go out before its meta switch is refused.
                MvbtException refused = assertThrows(MvbtException.class, () -> commitRound(stale, 'A'));
                assertTrue(refused.toString().contains("lease"), refused.toString());
            }
        } finally {
            closeQuietly(stale);
        }
        assertNeverStale(servers, name, options(sealed));
    }

    /**
     * A writer in another JVM stopped (SIGSTOP) after its lease check, just before its pages reach
     * Redis; its lease runs out, the reservation is lost, a successor commits; then it goes on.
     */
    @Test
    void aStaleWriterPausedBeforeItsPageSendsIsFenced() throws Exception {
        String name = "fence-" + (++names);
        int port = Integer.parseInt(single.address().substring(single.address().lastIndexOf(':') + 1));
        Process child = ChildJvm.start(null, RedisStaleWriterChild.class, Integer.toString(port), name, "2000");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("based", out.readLine());
            OutputStream in = child.getOutputStream();
            in.write("go\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            assertEquals("paused", out.readLine());
            loseReservationAndLease(single, name);
            // Its lease (2 s) would have run out by itself: the successor waits for it.
            try (Store next = open(single, name, options(false))) {
                commitRound(next, 'B');
            }
            new ProcessBuilder("kill", "-CONT", Long.toString(child.pid())).start().waitFor();
            String last = out.readLine();
            assertTrue(last != null && last.startsWith("refused ") && last.contains("lease"), "the stale writer: " + last);
        } finally {
            child.destroyForcibly().waitFor();
        }
        assertNeverStale(single, name, options(false));
    }

    /** A new reader reads the successor's round 'B' whole, or refuses a page; never a value of round 'A'. */
    private static void assertNeverStale(RedisServers servers, String name, RedisStoreOptions options) {
        List<byte[]> read;
        try (Store reader = Store.open(RedisPageStore.openReader(RedisEndpoint.parse(servers.address()), name, options),
                StoreOptions.defaults()); Snapshot s = reader.beginRead()) {
            Tree t = reader.tree("t");
            read = List.of(s.get(t, X), s.get(t, BIG));
        } catch (CorruptionException e) {
            assertTrue(e.pageNo() >= 4, e.toString());
            return;
        }
        assertArrayEquals(new byte[] {'B'}, read.get(0), "x: the successor's, not the stale writer's");
        assertArrayEquals(big('B'), read.get(1), "big: the successor's, not the stale writer's");
    }

    private static void closeQuietly(Store store) {
        try {
            store.close();
        } catch (MvbtException e) {
            // A writer that lost its lease cannot checkpoint at close.
        }
    }
}
