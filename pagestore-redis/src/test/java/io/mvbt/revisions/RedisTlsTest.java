// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvbt.StorageException;
import io.mvbt.pagestore.redis.RedisAccessException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.testkit.RedisServers;
import io.mvbt.testkit.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores on Redis servers that speak only TLS, with a certificate authority made for the test:
 * one server and a three-master cluster (its bus on TLS too).
 */
class RedisTlsTest {
    @TempDir
    static Path dir;
    private static TestCertificates certificates;
    private static TestCertificates misnamed;
    private static RedisServers single;
    private static RedisServers cluster;
    private static RedisServers wrongName;
    private static RedisServers mutual;

    @BeforeAll
    static void startRedis() throws Exception {
        certificates = TestCertificates.create(dir.resolve("certificates"), "dns:localhost,ip:127.0.0.1");
        misnamed = TestCertificates.create(dir.resolve("misnamed"), "dns:wrong.example");
        RedisServers.Setup tls = new RedisServers.Setup(certificates.serverArgs(), certificates.cliArgs(), true);
        single = RedisServers.single(dir.resolve("single"), true, tls);
        List<String> clusterArgs = new ArrayList<>(certificates.serverArgs());
        clusterArgs.addAll(List.of("--tls-cluster", "yes"));
        cluster = RedisServers.cluster(dir.resolve("cluster"), 3, true,
                new RedisServers.Setup(clusterArgs, certificates.cliArgs(), true));
        mutual = RedisServers.single(dir.resolve("mutual"), true, new RedisServers.Setup(
                certificates.serverArgsRequiringClients(), List.of(), true));
        wrongName = RedisServers.single(dir.resolve("wrong-name"), true,
                new RedisServers.Setup(misnamed.serverArgs(), misnamed.cliArgs(), true));
    }

    @AfterAll
    static void stopRedis() {
        for (RedisServers servers : new RedisServers[] {single, cluster, wrongName, mutual}) {
            if (servers != null) {
                servers.close();
            }
        }
    }

    private static RedisStoreOptions options() {
        return RedisStoreOptions.defaults().leaseWait(Duration.ofSeconds(2));
    }

    /** rediss:// for one server, cluster:rediss:// for a cluster. */
    private static RedisEndpoint rediss(RedisServers servers) {
        String address = servers.address();
        return RedisEndpoint.parse(address.startsWith("cluster:") ? "cluster:rediss://" + address.substring(8)
                : "rediss://" + address);
    }

    private static void writeAndRead(RedisEndpoint endpoint, String name) {
        try (Store store = Store.open(RedisPageStore.open(endpoint, name, options()),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTreeIfAbsent("t");
                for (int i = 0; i < 400; i++) {
                    tx.put(t, ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8));
                }
                tx.commit();
            }
        }
        try (Store reader = Store.open(RedisPageStore.openReader(endpoint, name, options()), StoreOptions.defaults());
                Snapshot s = reader.beginRead()) {
            assertEquals(400, s.count(reader.tree("t")));
        }
    }

    @Test
    void aClientThatTrustsTheAuthorityWritesAndReads() throws Exception {
        SSLContext trusting = certificates.trustingContext();
        RedisEndpoint one = rediss(single).withTls(trusting, null);
        assertTrue(one.isTls());
        assertTrue(one.toString().startsWith("rediss://"), one.toString());
        writeAndRead(one, "tls-single");
        writeAndRead(rediss(cluster).withTls(trusting, null), "tls-cluster");
    }

    @Test
    void aClientThatDoesNotTrustTheAuthorityIsRefused() {
        long start = System.nanoTime();
        StorageException refused = assertThrows(StorageException.class,
                () -> RedisPageStore.open(rediss(single), "untrusted", options()));
        assertFalse(refused instanceof RedisAccessException);
        assertTrue(System.nanoTime() - start < 10_000_000_000L, "refused at once");
        assertThrows(StorageException.class, () -> RedisPageStore.open(rediss(cluster), "untrusted", options()));
    }

    @Test
    void aServerThatAsksForClientCertificatesTakesOnlyOnesItsAuthoritySigned() throws Exception {
        assertThrows(StorageException.class,
                () -> RedisPageStore.open(rediss(mutual).withTls(certificates.trustingContext(), null), "mutual",
                        options()), "no client certificate");
        writeAndRead(rediss(mutual).withTls(certificates.clientContext(), null), "mutual");
        assertThrows(StorageException.class,
                () -> RedisPageStore.open(rediss(mutual).withTls(misnamed.clientContext(), null)
                        .withoutHostnameVerification(), "mutual", options()), "a certificate of another authority");
    }

    @Test
    void theServerMustBeNamedInItsCertificate() throws Exception {
        RedisEndpoint verified = rediss(wrongName).withTls(misnamed.trustingContext(), null);
        assertThrows(StorageException.class, () -> RedisPageStore.open(verified, "misnamed", options()),
                "hostname verification is on by default");
        SSLParameters own = misnamed.trustingContext().getDefaultSSLParameters();
        own.setEndpointIdentificationAlgorithm(null);
        own.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        assertThrows(StorageException.class,
                () -> RedisPageStore.open(rediss(wrongName).withTls(misnamed.trustingContext(), own), "misnamed", options()),
                "parameters of the caller's own keep it on");
        writeAndRead(rediss(wrongName).withTls(misnamed.trustingContext(), own).withoutHostnameVerification(),
                "misnamed");
    }

    @Test
    void plainTextAgainstATlsPortFailsClearlyAndFast() {
        for (RedisServers servers : new RedisServers[] {single, cluster}) {
            long start = System.nanoTime();
            StorageException failed = assertThrows(StorageException.class,
                    () -> RedisPageStore.open(RedisEndpoint.parse(servers.address()), "plain", options()));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 15_000, "failed after " + millis + " ms: " + failed);
            assertTrue(failed.getMessage().contains("cannot"), failed.getMessage());
        }
    }
}
