// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

import io.mvbt.CorruptionException;
import io.mvbt.MvbtException;
import io.mvbt.StorageException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.pagestore.redis.SealingKeys;

/**
 * Sealed pages ({@link RedisStoreOptions#sealWith}) on one Redis server, with an operator's full
 * access to it: everything sent is ciphertext; a page altered, swapped with another page, copied
 * from another store sealed with the same key, or opened with the wrong key is refused as
 * {@link CorruptionException} naming the page, never returned; keys rotate; no nonce repeats.
 */
class RedisSealTest extends RedisTestServers {
    private static final byte[] MARKER = "PLAINTEXT-MARKER".getBytes(StandardCharsets.US_ASCII);
    private static int names;

    private static SecretKey key(int seed) {
        byte[] bytes = new byte[32];
        java.util.Arrays.fill(bytes, (byte) seed);
        return new SecretKeySpec(bytes, "AES");
    }

    private static RedisStoreOptions sealed(SealingKeys keys) {
        return RedisStoreOptions.defaults().sealWith(keys).leaseWait(Duration.ofSeconds(5));
    }

    private static Store open(String name, RedisStoreOptions options) {
        return Store.open(RedisPageStore.open(RedisEndpoint.parse(single.address()), name, options),
                StoreOptions.defaults().durability(Durability.SYNC));
    }

    private static Store openReader(String name, RedisStoreOptions options) {
        return Store.open(RedisPageStore.openReader(RedisEndpoint.parse(single.address()), name, options),
                StoreOptions.defaults());
    }

    private static byte[] value(int i) {
        byte[] v = new byte[i % 7 == 0 ? 9000 : 300]; // some values span pages (a run of pages is one value)
        for (int at = 0; at + MARKER.length <= v.length; at += MARKER.length) {
            System.arraycopy(MARKER, 0, v, at, MARKER.length);
        }
        v[0] = (byte) i;
        return v;
    }

    private static void fill(Store store, int from, int to) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = from; i < to; i++) {
                tx.put(t, RedisWriterTest.key(i), value(i));
            }
            tx.commit();
        }
    }

    /** Reads every key back: the values, or the first exception. */
    private static void readAll(Store store, int count) {
        try (Snapshot s = store.beginRead()) {
            for (int i = 0; i < count; i++) {
                assertArrayEquals(value(i), s.get(store.tree("t"), RedisWriterTest.key(i)), "key " + i);
            }
        }
    }

    private static RedisClient client() {
        return RedisClient.builder().hostAndPort(HostAndPort.from(single.address())).build();
    }

    private static List<byte[]> pageKeys(RedisClient redis, String name) {
        return new ArrayList<>(redis.keys(("mvbt:" + name + ":p:*").getBytes(StandardCharsets.UTF_8)));
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Test
    void whatRedisHoldsIsCiphertextAndReadsBackWhole() {
        String name = "seal-" + (++names);
        SealingKeys keys = SealingKeys.of("k1", key(1));
        try (Store store = open(name, sealed(keys))) {
            fill(store, 0, 300);
            readAll(store, 300);
        }
        try (RedisClient redis = client()) {
            List<byte[]> pages = pageKeys(redis, name);
            assertTrue(pages.size() > 10, "pages: " + pages.size());
            for (byte[] key : pages) {
                assertFalse(contains(redis.get(key), MARKER), new String(key, StandardCharsets.UTF_8) + " holds plaintext");
            }
            Map<byte[], byte[]> meta = redis.hgetAll(("{mvbt:" + name + "}:meta").getBytes(StandardCharsets.UTF_8));
            Set<String> fields = new HashSet<>();
            meta.forEach((field, v) -> fields.add(new String(field, StandardCharsets.UTF_8)));
            assertTrue(fields.contains("sealKey") && fields.contains("head"), fields.toString());
            assertEquals("k1", new String(redis.hget(("{mvbt:" + name + "}:meta").getBytes(StandardCharsets.UTF_8),
                    "sealKey".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
        }
        try (Store again = open(name, sealed(keys)); Store reader = openReader(name, sealed(keys))) {
            readAll(again, 300);
            readAll(reader, 300);
            again.check().throwIfDamaged();
        }
    }

    @Test
    void aPageAlteredSwappedOrFromAnotherStoreIsRefusedNamingIt() {
        String name = "seal-" + (++names);
        String other = "seal-" + (++names);
        SealingKeys keys = SealingKeys.of("k1", key(1));
        try (Store store = open(name, sealed(keys)); Store second = open(other, sealed(keys))) {
            fill(store, 0, 300);
            fill(second, 0, 300);
        }
        try (RedisClient redis = client()) {
            List<byte[]> pages = pageKeys(redis, name);
            byte[] a = pages.get(0);
            byte[] b = pages.get(1);
            byte[] original = redis.get(a);
            // Altered: one bit of the ciphertext.
            byte[] altered = original.clone();
            altered[altered.length / 2] ^= 1;
            redis.set(a, altered);
            assertRefused(name, keys, a);
            // Swapped: another page's value (valid, but sealed for another page number).
            redis.set(a, redis.get(b));
            assertRefused(name, keys, a);
            // From another store sealed with the same key, at the same page number.
            // (Both stores were written alike, so they have the same page numbers.)
            String sameNumber = new String(a, StandardCharsets.UTF_8).replace("mvbt:" + name + ":", "mvbt:" + other + ":");
            byte[] foreign = redis.get(sameNumber.getBytes(StandardCharsets.UTF_8));
            assertTrue(foreign != null, sameNumber);
            redis.set(a, foreign);
            assertRefused(name, keys, a);
            redis.set(a, original);
        }
        try (Store store = openReader(name, sealed(keys))) {
            readAll(store, 300);
        }
    }

    /**
     * Store {@code b}'s meta hash and pages copied whole onto store {@code a}, sealed with the same
     * key: a reader of {@code a} refuses them, naming the store, and does not read {@code b}'s
     * entries as {@code a}'s.
     */
    @Test
    void anotherStoreCopiedWholeOverAStoreIsRefusedNamingIt() throws Exception {
        String a = "seal-" + (++names);
        String b = "seal-" + (++names);
        SealingKeys keys = SealingKeys.of("k1", key(1));
        try (Store store = open(a, sealed(keys))) {
            fill(store, 0, 10);
        }
        try (Store store = open(b, sealed(keys))) {
            fill(store, 0, 300);
        }
        try (RedisClient redis = client()) {
            for (byte[] key : pageKeys(redis, a)) {
                redis.del(key);
            }
            for (byte[] key : pageKeys(redis, b)) {
                String name = new String(key, StandardCharsets.UTF_8).replace("mvbt:" + b + ":", "mvbt:" + a + ":");
                redis.set(name.getBytes(StandardCharsets.UTF_8), redis.get(key));
            }
            byte[] metaA = ("{mvbt:" + a + "}:meta").getBytes(StandardCharsets.UTF_8);
            redis.del(metaA);
            redis.hgetAll(("{mvbt:" + b + "}:meta").getBytes(StandardCharsets.UTF_8)).forEach((f, v) -> redis.hset(metaA, f, v));
        }
        MvbtException e = assertThrows(MvbtException.class, () -> {
            try (Store store = openReader(a, sealed(keys))) {
                readAll(store, 300);
                store.check().throwIfDamaged();
            }
        });
        CorruptionException damage = find(e);
        assertTrue(damage != null && damage.getMessage().contains("store '" + a + "'"), e.toString());
    }

    /**
     * Store {@code a}'s meta hash seeded with what store {@code b} holds for its seals before
     * {@code a} is made: a value of either, put at the same page number in the other, is refused
     * naming the store it was put in.
     */
    @Test
    void aStoreSeededWithAnotherStoresSealFieldsSealsApartFromIt() throws Exception {
        String a = "seal-" + (++names);
        String b = "seal-" + (++names);
        SealingKeys keys = SealingKeys.of("k1", key(1));
        try (Store store = open(b, sealed(keys))) {
            fill(store, 0, 300);
        }
        try (RedisClient redis = client()) {
            byte[] metaA = ("{mvbt:" + a + "}:meta").getBytes(StandardCharsets.UTF_8);
            byte[] metaB = ("{mvbt:" + b + "}:meta").getBytes(StandardCharsets.UTF_8);
            for (String field : List.of("sealSalt", "sealKey")) {
                byte[] value = redis.hget(metaB, field.getBytes(StandardCharsets.UTF_8));
                if (value != null) {
                    redis.hset(metaA, field.getBytes(StandardCharsets.UTF_8), value);
                }
            }
        }
        try (Store store = open(a, sealed(keys))) {
            fill(store, 0, 300);
        }
        try (RedisClient redis = client()) {
            byte[] pageA = pageKeys(redis, a).get(0);
            byte[] pageB = new String(pageA, StandardCharsets.UTF_8).replace("mvbt:" + a + ":", "mvbt:" + b + ":")
                    .getBytes(StandardCharsets.UTF_8);
            byte[] valueA = redis.get(pageA);
            byte[] valueB = redis.get(pageB);
            assertTrue(valueB != null, "both stores have the page");
            redis.set(pageA, valueB);
            assertRefused(a, keys, pageA);
            redis.set(pageA, valueA);
            redis.set(pageB, valueA);
            assertRefused(b, keys, pageB);
            redis.set(pageB, valueB);
        }
    }

    /**
     * A page or meta slot whose value names a key id the keys lack (whoever can write Redis can
     * write any) is damage naming the page or slot, like any value that does not open.
     */
    @Test
    void aValueNamingAKeyTheKeysLackIsRefusedNamingIt() throws Exception {
        String name = "seal-" + (++names);
        SealingKeys keys = SealingKeys.of("k1", key(1));
        try (Store store = open(name, sealed(keys))) {
            fill(store, 0, 300);
        }
        try (RedisClient redis = client()) {
            byte[] page = pageKeys(redis, name).get(0);
            byte[] original = redis.get(page);
            byte[] forged = original.clone();
            forged[3] = '9'; // "k1" becomes "k9"
            redis.set(page, forged);
            assertRefused(name, keys, page);
            redis.set(page, original);
            byte[] meta = ("{mvbt:" + name + "}:meta").getBytes(StandardCharsets.UTF_8);
            byte[] slot = "0".getBytes(StandardCharsets.UTF_8);
            byte[] value = redis.hget(meta, slot);
            value[3] = '9';
            redis.hset(meta, slot, value);
        }
        MvbtException e = assertThrows(MvbtException.class, () -> openReader(name, sealed(keys)).close());
        assertTrue(find(e) != null && find(e).getMessage().contains("meta slot 0"), e.toString());
    }

    /** A snapshot that reads every page of the store meets page {@code key} and must refuse it, naming it and the store. */
    private static void assertRefused(String name, SealingKeys keys, byte[] key) {
        String pageNo = new String(key, StandardCharsets.UTF_8).substring(("mvbt:" + name + ":p:").length());
        MvbtException e = assertThrows(MvbtException.class, () -> {
            try (Store store = openReader(name, sealed(keys))) {
                readAll(store, 300);
                store.check().throwIfDamaged();
            }
        });
        CorruptionException damage = find(e);
        assertTrue(damage != null, () -> "no CorruptionException in " + e);
        assertTrue(damage.getMessage().contains(pageNo) && damage.getMessage().contains("refused")
                && damage.getMessage().contains("store '" + name + "'"), damage.getMessage());
    }

    private static CorruptionException find(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CorruptionException c) {
                return c;
            }
            for (Throwable s : t.getSuppressed()) {
                CorruptionException c = find(s);
                if (c != null) {
                    return c;
                }
            }
        }
        return null;
    }

    @Test
    void theWrongKeyOrNoKeyOrAnUnsealedStoreIsRefusedAtOpen() {
        String name = "seal-" + (++names);
        try (Store store = open(name, sealed(SealingKeys.of("k1", key(1))))) {
            fill(store, 0, 50);
        }
        // The same id, another key: the meta slots do not open.
        MvbtException wrong = assertThrows(MvbtException.class, () -> openReader(name, sealed(SealingKeys.of("k1", key(2)))));
        assertTrue(find(wrong) != null && find(wrong).getMessage().contains("meta slot"), wrong.toString());
        // Another id: named.
        StorageException missing = assertThrows(StorageException.class,
                () -> openReader(name, sealed(SealingKeys.of("k9", key(1)))));
        assertTrue(missing.getMessage().contains("'k1'"), missing.getMessage());
        // No keys.
        StorageException none = assertThrows(StorageException.class,
                () -> openReader(name, RedisStoreOptions.defaults()));
        assertTrue(none.getMessage().contains("sealWith"), none.getMessage());
        // A key id that cannot be recorded (over 255 bytes) is refused before anything is sealed with it.
        StorageException longId = assertThrows(StorageException.class,
                () -> open("seal-" + (++names), sealed(SealingKeys.of("k".repeat(300), key(1)))));
        assertTrue(longId.getMessage().contains("1 to 255 bytes"), longId.getMessage());
        // An unsealed store is not sealed later.
        String plain = "seal-" + (++names);
        try (Store store = open(plain, RedisStoreOptions.defaults())) {
            fill(store, 0, 10);
        }
        StorageException unsealed = assertThrows(StorageException.class,
                () -> open(plain, sealed(SealingKeys.of("k1", key(1)))));
        assertTrue(unsealed.getMessage().contains("unsealed"), unsealed.getMessage());
    }

    @Test
    void keysRotateAndNoNonceRepeatsAcrossWriters() {
        String name = "seal-" + (++names);
        SecretKey first = key(1);
        SecretKey second = key(2);
        try (Store store = open(name, sealed(SealingKeys.of("k1", first)))) {
            fill(store, 0, 200);
        }
        SealingKeys both = new SealingKeys() {
            @Override
            public String currentKeyId() {
                return "k2";
            }

            @Override
            public SecretKey key(String id) {
                return id.equals("k1") ? first : id.equals("k2") ? second : null;
            }
        };
        try (Store store = open(name, sealed(both))) {
            fill(store, 200, 400);
            readAll(store, 400);
        }
        try (Store reader = openReader(name, sealed(both))) {
            readAll(reader, 400);
        }
        // The second key alone cannot open the pages the first sealed.
        assertThrows(MvbtException.class, () -> {
            try (Store reader = openReader(name, sealed(SealingKeys.of("k2", second)))) {
                readAll(reader, 400);
            }
        });
        try (RedisClient redis = client()) {
            Set<String> nonces = new HashSet<>();
            List<byte[]> values = new ArrayList<>();
            for (byte[] key : pageKeys(redis, name)) {
                values.add(redis.get(key));
            }
            redis.hgetAll(("{mvbt:" + name + "}:meta").getBytes(StandardCharsets.UTF_8)).forEach((field, v) -> {
                if (new String(field, StandardCharsets.UTF_8).matches("[0-3]")) {
                    values.add(v);
                }
            });
            Set<String> sessions = new HashSet<>();
            for (byte[] v : values) {
                // After the key id: the writer session's 16-byte id (its own key), then the 12-byte nonce.
                int idLength = v[1] & 0xff;
                sessions.add(java.util.HexFormat.of().formatHex(v, 2 + idLength, 2 + idLength + 16));
                String nonce = java.util.HexFormat.of().formatHex(v, 2 + idLength, 2 + idLength + 16 + 12);
                assertTrue(nonces.add(nonce), "session and nonce " + nonce + " used twice");
            }
            assertTrue(values.size() > 20, "values: " + values.size());
            assertEquals(2, sessions.size(), "two writer sessions, each with its own key: " + sessions);
        }
    }
}
