// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.mvbt.CorruptionException;
import io.mvbt.MvbtException;
import io.mvbt.StoreLockedException;
import io.mvbt.pagestore.redis.LeaseLostException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisUnavailableException;
import io.mvbt.testkit.RedisServers;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * The leased writer of a store on Redis: one writer at a time, takeover after a lease runs out, a
 * stale writer refused, a killed writer losing nothing acknowledged, a Redis node going down, and
 * no page left behind that nothing reaches.
 */
class RedisWriterTest extends RedisTestServers {
    private static int names;

    static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(int i) {
        return ("value-" + i + "-" + "v".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
    }

    private static String newName() {
        return "writer-test-" + (++names);
    }

    private static RedisStoreOptions options(Duration lease) {
        return RedisStoreOptions.defaults().leaseTime(lease);
    }

    private static Store open(RedisEndpoint endpoint, String name, RedisStoreOptions options) {
        return Store.open(RedisPageStore.open(endpoint, name, options), StoreOptions.defaults().durability(Durability.SYNC));
    }

    private static void put(Store store, int i) {
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(tx.createTreeIfAbsent("t"), key(i), value(i));
            tx.commit();
        }
    }

    private static byte[] get(Store store, int i) {
        try (Snapshot s = store.beginRead()) {
            return s.get(store.tree("t"), key(i));
        }
    }

    @Test
    void aSecondWriterIsRefusedWhileTheLeaseHolds() {
        String name = newName();
        try (Store first = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            put(first, 1);
            StoreLockedException e = assertThrows(StoreLockedException.class,
                    () -> open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10))));
            assertTrue(e.getMessage().contains("holds its lease") && e.getMessage().contains(name), e.getMessage());
            assertTrue(e.getMessage().contains(ProcessHandle.current().pid() + "@"), e.getMessage());
        }
        try (Store second = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            assertArrayEquals(value(1), get(second, 1));
        }
    }

    @Test
    void aWriterWhoseLeaseWasTakenOverCannotCommit() throws Exception {
        String name = newName();
        Store stale = open(RedisEndpoint.parse(cluster.address()), name, options(Duration.ofSeconds(30)));
        try {
            put(stale, 1);
            // As if the stale writer stalled past its deadline: the lease key is gone, and a new writer takes it.
            cluster.cli("DEL", "{mvbt:" + name + "}:lease");
            try (Store next = open(RedisEndpoint.parse(cluster.address()), name, options(Duration.ofSeconds(30)))) {
                put(next, 2);
                MvbtException refused = assertThrows(MvbtException.class, () -> put(stale, 3));
                assertInstanceOf(LeaseLostException.class, refused.getCause(), refused.toString());
                assertThrows(MvbtException.class, () -> put(stale, 4));
                put(next, 5);
                assertArrayEquals(value(1), get(next, 1));
                assertArrayEquals(value(2), get(next, 2));
                assertNull(get(next, 3));
                next.check().throwIfDamaged();
            }
        } finally {
            stale.close();
        }
        try (Store after = open(RedisEndpoint.parse(cluster.address()), name, options(Duration.ofSeconds(30)))) {
            for (int i : new int[] {1, 2, 5}) {
                assertArrayEquals(value(i), get(after, i), "key " + i);
            }
            assertNull(get(after, 3));
            assertNull(get(after, 4));
            after.check().throwIfDamaged();
        }
    }

    @Test
    void aKilledWriterLosesNothingItAcknowledged() throws Exception {
        String name = newName();
        Process child = ChildJvm.start(null, RedisWriterChild.class, RedisEndpoint.parse(cluster.address()).toString(), name, "3000", "0",
                "0");
        int acknowledged = -1;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            int killAt = 150 + new Random().nextInt(100);
            assertEquals("leased", out.readLine());
            String line;
            while ((line = out.readLine()) != null) {
                assertTrue(line.startsWith("committed "), line);
                acknowledged = Integer.parseInt(line.substring("committed ".length()));
                if (acknowledged == killAt) {
                    // Mid-commit, most likely: it commits back to back. (Process.destroy would close its output.)
                    child.toHandle().destroyForcibly();
                }
            }
        } finally {
            child.destroyForcibly().waitFor();
        }
        assertTrue(acknowledged >= 150, "the child committed only up to " + acknowledged);
        // The dead writer's lease runs out after 3 s; the new writer waits for it.
        try (Store after = open(RedisEndpoint.parse(cluster.address()), name,
                options(Duration.ofSeconds(10)).leaseWait(Duration.ofSeconds(10)))) {
            for (int i = 0; i <= acknowledged; i++) {
                assertArrayEquals(value(i), get(after, i), "acknowledged key " + i);
            }
            after.check().throwIfDamaged();
            put(after, acknowledged + 1000);
        }
    }

    /** What a writer JVM printed, read as it prints. */
    private static final class ChildLines {
        final java.util.List<String> lines = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        final Process process;

        ChildLines(Process process) {
            this.process = process;
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        lines.add(line);
                    }
                } catch (java.io.IOException e) {
                    lines.add("read failed: " + e);
                }
            });
            reader.setDaemon(true);
            reader.start();
        }

        int committed() {
            synchronized (lines) {
                return (int) lines.stream().filter(l -> l.startsWith("committed ")).count();
            }
        }

        boolean leased() {
            return lines.contains("leased");
        }

        /** The keys it acknowledged; fails on any line that is not a lease or a commit. */
        java.util.List<Integer> acknowledged() {
            java.util.List<Integer> keys = new java.util.ArrayList<>();
            synchronized (lines) {
                for (String l : lines) {
                    if (l.startsWith("committed ")) {
                        keys.add(Integer.parseInt(l.substring("committed ".length())));
                    } else {
                        assertEquals("leased", l, "the writer printed");
                    }
                }
            }
            return keys;
        }
    }

    /**
     * Two writer JVMs start together: one takes the lease and commits, the other waits. Once the
     * first is killed, the second takes over after the lease runs out, and every commit either
     * acknowledged is in the store.
     */
    @Test
    void twoWriterProcessesTakeTurnsThroughTheLease() throws Exception {
        String name = newName();
        ChildLines a = new ChildLines(ChildJvm.start(null, RedisWriterChild.class, RedisEndpoint.parse(cluster.address()).toString(), name,
                "3000", "60000", "0"));
        ChildLines b = new ChildLines(ChildJvm.start(null, RedisWriterChild.class, RedisEndpoint.parse(cluster.address()).toString(), name,
                "3000", "60000", "500000"));
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (a.committed() < 100 && b.committed() < 100) {
                assertTrue(System.nanoTime() < deadline, "no writer got going: " + a.lines + " " + b.lines);
                Thread.sleep(20);
            }
            ChildLines first = a.committed() >= 100 ? a : b;
            ChildLines second = first == a ? b : a;
            assertTrue(!second.leased(), "both writers held the lease at once");
            first.process.toHandle().destroyForcibly();
            first.process.waitFor();
            while (second.committed() < 100) {
                assertTrue(System.nanoTime() < deadline, "the waiting writer never took over: " + second.lines);
                Thread.sleep(20);
            }
            second.process.toHandle().destroyForcibly();
            second.process.waitFor();
            Thread.sleep(200);
            try (Store after = open(RedisEndpoint.parse(cluster.address()), name, options(Duration.ofSeconds(10))
                    .leaseWait(Duration.ofSeconds(10)))) {
                for (ChildLines writer : java.util.List.of(first, second)) {
                    java.util.List<Integer> keys = writer.acknowledged();
                    assertTrue(keys.size() >= 100, "acknowledged " + keys.size());
                    for (int k : keys) {
                        assertArrayEquals(value(k), get(after, k), "acknowledged key " + k);
                    }
                }
                after.check().throwIfDamaged();
            }
        } finally {
            a.process.toHandle().destroyForcibly();
            b.process.toHandle().destroyForcibly();
        }
    }

    @Test
    void aRedisNodeDownFailsCommitsClearlyAndLosesNothingCommitted() throws Exception {
        try (RedisServers own = RedisServers.cluster(dir.resolve("failing"), 3)) {
            String name = newName();
            // No replica takes over: the writer waits a second for one, then gives up.
            Store store = open(RedisEndpoint.parse(own.address()), name, options(Duration.ofSeconds(5))
                    .commandTimeout(Duration.ofMillis(500)).failoverWait(Duration.ofSeconds(1)));
            try {
                for (int i = 0; i < 300; i++) {
                    put(store, i);
                }
                own.nodes().get(1).kill();
                // Pages spread over every node, so a commit of a few pages fails soon.
                MvbtException e = assertThrows(MvbtException.class, () -> {
                    for (int i = 300; i < 2000; i++) {
                        put(store, i);
                    }
                });
                RedisUnavailableException cause = assertInstanceOf(RedisUnavailableException.class, e.getCause(),
                        e.toString());
                String down = "127.0.0.1:" + own.nodes().get(1).port();
                assertTrue(cause.getMessage().contains(name) && cause.getMessage().contains("cluster:127.0.0.1:")
                        && cause.getMessage().contains("gave up after") && cause.getMessage().contains(down),
                        cause.getMessage());
                assertFalse(e.getMessage().contains("fsync"), e.getMessage());
            } finally {
                try {
                    store.close();
                } catch (MvbtException e) {
                    // Its last checkpoint cannot reach the node that is down; the commits above were synced.
                }
            }
            own.nodes().get(1).restart();
            for (RedisServers.Node node : own.nodes()) {
                own.awaitClusterOk(node);
            }
            try (Store after = open(RedisEndpoint.parse(own.address()), name,
                    options(Duration.ofSeconds(5)).leaseWait(Duration.ofSeconds(10)))) {
                for (int i = 0; i < 300; i++) {
                    assertArrayEquals(value(i), get(after, i), "committed key " + i);
                }
                after.check().throwIfDamaged();
                put(after, 5000);
            }
        }
    }

    /**
     * A transaction that frees pages it made itself (a large value written twice frees its first
     * run), with a checkpoint sending between the free and the commit: the checkpoint takes the
     * discard, the commit reports the run written, and it must reach neither Redis (a key that
     * nothing deletes) nor memory.
     */
    @Test
    void pagesATransactionMadeAndFreedNeverReachRedis() throws Exception {
        String name = newName();
        byte[] big = new byte[3 * 4096];
        try (Store store = Store.open(RedisPageStore.open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10))),
                StoreOptions.defaults().durability(Durability.NORMAL))) {
            for (int round = 0; round < 5; round++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = 0; i < 20; i++) {
                        big[0] = (byte) round;
                        tx.put(t, key(i), big);
                        big[0] = (byte) (round + 100);
                        tx.put(t, key(i), big);
                    }
                    // A checkpoint while the transaction runs (it needs no writer).
                    java.util.concurrent.CompletableFuture.runAsync(store::sync).get();
                    tx.commit();
                }
            }
        }
        long pageKeys = single.countKeys("mvbt:" + name + ":p:*");
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            assertEquals(104, get(store, 7)[0]);
            store.check().throwIfDamaged();
            // A run is one key: the 20 runs in use count once each, not per page.
            TreeStats t;
            try (Snapshot s = store.beginRead()) {
                t = s.treeStats(store.tree("t"));
            }
            assertEquals(store.stats().pagesInUse() - 4 - t.overflowPages() + 20, pageKeys);
        }
    }

    @Test
    void aCleanCloseLeavesOnlyReachablePages() throws Exception {
        String name = newName();
        TreeMap<Integer, byte[]> model = new TreeMap<>();
        Random random = new Random(42);
        try (Store store = Store.open(RedisPageStore.open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10))),
                StoreOptions.defaults().durability(Durability.NORMAL))) {
            Snapshot held = null;
            for (int round = 0; round < 300; round++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int j = 0; j < 20; j++) {
                        int k = random.nextInt(3000);
                        if (random.nextInt(3) == 0) {
                            tx.delete(t, key(k));
                            model.remove(k);
                        } else {
                            tx.put(t, key(k), value(k));
                            model.put(k, value(k));
                        }
                    }
                    tx.commit(round % 10 == 0 ? Durability.SYNC : Durability.NORMAL);
                }
                if (round % 37 == 0) {
                    if (held != null) {
                        held.close();
                    }
                    held = store.beginRead();
                }
            }
            held.close();
        }
        long pageKeys = single.countKeys("mvbt:" + name + ":p:*");
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            try (Snapshot s = store.beginRead()) {
                for (var e : model.entrySet()) {
                    assertArrayEquals(e.getValue(), s.get(store.tree("t"), key(e.getKey())));
                }
            }
            store.check().throwIfDamaged();
            // Every page in use but the meta slots (fields of the meta hash) is one key; nothing else is left.
            assertEquals(store.stats().pagesInUse() - 4, pageKeys);
        }
    }

    /**
     * A reservation far past what any writer can have used without publishing (whoever can write
     * the meta hash set it) is refused as damage at once, not deleted page by page.
     */
    @Test
    void aReservationNoMetaCanExplainIsRefusedAtOnce() throws Exception {
        String name = newName();
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            put(store, 1);
        }
        String meta = "{mvbt:" + name + "}:meta";
        long pageCount = Long.parseLong(single.cli("HGET", meta, "pageCount").trim());
        single.cli("HSET", meta, "reserved", Long.toString(pageCount + (1L << 40)));
        CorruptionException e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(
                CorruptionException.class, () -> open(RedisEndpoint.parse(single.address()), name,
                        options(Duration.ofSeconds(10)))));
        assertTrue(e.getMessage().contains("reserved") && e.getMessage().contains(meta), e.getMessage());
    }

    /**
     * Pages reserved and never published, more than a takeover deletes one by one, are left to
     * the sweep, which deletes every page key in that range.
     */
    @Test
    void aLargeUnpublishedRangeIsSweptNotDeletedPageByPage() throws Exception {
        String name = newName();
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            put(store, 1);
        }
        String meta = "{mvbt:" + name + "}:meta";
        long pageCount = Long.parseLong(single.cli("HGET", meta, "pageCount").trim());
        long reserved = pageCount + 1_000_000;
        single.cli("HSET", meta, "reserved", Long.toString(reserved));
        // What a writer that died could have left there.
        for (long p : new long[] {pageCount, pageCount + 500_000, reserved - 1}) {
            single.cli("SET", "mvbt:" + name + ":p:" + p, "left behind");
        }
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            put(store, 2);
        }
        for (long p : new long[] {pageCount, pageCount + 500_000, reserved - 1}) {
            assertEquals(0, single.countKeys("mvbt:" + name + ":p:" + p), "page " + p);
        }
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            assertArrayEquals(value(1), get(store, 1));
            assertArrayEquals(value(2), get(store, 2));
            store.check().throwIfDamaged();
        }
    }

    /**
     * A store that check() found damaged deletes nothing at close: its sweep of leftover pages would
     * take the pages a damaged free map calls discarded, reachable or not.
     */
    @Test
    void aStoreFoundDamagedSweepsNoPages() throws Exception {
        String name = newName();
        String pattern = "mvbt:" + name + ":p:*";
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            putMany(store, 0, 300, 0);
        }
        long pageKeys = single.countKeys(pattern);
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            // What a damaged free map says once loaded: every page in use is discarded.
            for (long p = 0; p < store.pages().pageCount(); p++) {
                if (store.space().inUse.get(p)) {
                    store.space().discarded.set(p);
                }
            }
            assertFalse(store.check().ok());
        }
        assertEquals(pageKeys, single.countKeys(pattern), "no page key deleted");
        try (Store store = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(10)))) {
            for (int i = 0; i < 300; i++) {
                assertArrayEquals(value(i), get(store, i), "key " + i);
            }
        }
    }

    /** Puts keys {@code from} to {@code from + count - 1} in one transaction, each with {@code value(i + shift)}. */
    private static void putMany(Store store, int from, int count, int shift) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = from; i < from + count; i++) {
                tx.put(t, key(i), value(i + shift));
            }
            tx.commit();
        }
    }

    /**
     * A writer that loses its lease leaves pages behind: those its snapshot still held, and those
     * it sends after its successor took over, before its meta switch is refused. The successor
     * sweeps them (on every node of a cluster) once no reader can reach them, and deletes nothing
     * in use.
     */
    @Test
    void pagesLeftByAWriterThatLostItsLeaseAreSweptByTheNext() throws Exception {
        String name = newName();
        String pattern = "mvbt:" + name + ":p:*";
        Store stale = open(RedisEndpoint.parse(cluster.address()), name, options(Duration.ofSeconds(30)));
        RedisPageStore nextPages;
        try {
            putMany(stale, 0, 300, 0);
            Snapshot held = stale.beginRead();
            putMany(stale, 0, 300, 7);
            cluster.cli("DEL", "{mvbt:" + name + "}:lease");
            nextPages = RedisPageStore.open(RedisEndpoint.parse(cluster.address()), name, options(Duration.ofSeconds(30)));
            try (Store next = Store.open(nextPages, StoreOptions.defaults().durability(Durability.SYNC))) {
                assertThrows(MvbtException.class, () -> putMany(stale, 0, 300, 11));
                held.close();
                try {
                    stale.close();
                } catch (MvbtException expected) {
                    // It cannot checkpoint without its lease.
                }
                long leftBehind = cluster.countKeys(pattern) - (next.stats().pagesInUse() - 4);
                assertTrue(leftBehind > 10, leftBehind + " page keys left behind");
                for (int i = 0; i < 10; i++) {
                    put(next, 1000 + i);
                    Thread.sleep(50);
                }
                assertTrue(nextPages.sweptPages() >= leftBehind, nextPages.sweptPages() + " swept of " + leftBehind);
            }
        } finally {
            stale.close();
        }
        long pageKeys = cluster.countKeys(pattern);
        try (Store after = open(RedisEndpoint.parse(cluster.address()), name, options(Duration.ofSeconds(30)))) {
            for (int i = 0; i < 300; i++) {
                assertArrayEquals(value(i + 7), get(after, i), "key " + i);
            }
            for (int i = 1000; i < 1010; i++) {
                assertArrayEquals(value(i), get(after, i), "key " + i);
            }
            after.check().throwIfDamaged();
            assertEquals(after.stats().pagesInUse() - 4, pageKeys);
        }
    }

    /**
     * The sweep waits for readers elsewhere: a snapshot registered on a revision older than the one
     * the new writer opened at keeps every page it can reach, unread until the end.
     */
    @Test
    void theSweepSparesPagesAReaderElsewhereStillReaches() throws Exception {
        String name = newName();
        String pattern = "mvbt:" + name + ":p:*";
        Store stale = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(30)));
        RedisPageStore nextPages;
        try (Store reader = Store.open(RedisPageStore.openReader(RedisEndpoint.parse(single.address()), name, RedisStoreOptions.defaults()),
                StoreOptions.defaults())) {
            putMany(stale, 0, 300, 0);
            Snapshot old = reader.beginRead();
            putMany(stale, 0, 300, 7);
            single.cli("DEL", "{mvbt:" + name + "}:lease");
            try {
                stale.close();
            } catch (MvbtException expected) {
                // It cannot checkpoint without its lease.
            }
            nextPages = RedisPageStore.open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(30)));
            try (Store next = Store.open(nextPages, StoreOptions.defaults().durability(Durability.SYNC))) {
                for (int i = 0; i < 10; i++) {
                    putMany(next, 0, 300, 20 + i);
                    Thread.sleep(50);
                }
                assertEquals(0, nextPages.sweptPages(), "swept while a reader holds an older revision");
                Tree t = reader.tree("t");
                for (int i = 0; i < 300; i++) {
                    assertArrayEquals(value(i), old.get(t, key(i)), "key " + i + " in the old snapshot");
                }
                old.close();
                // Its registration ends with the reader (or with a refresh, within a third of its lease).
                reader.close();
                for (int i = 0; i < 10; i++) {
                    put(next, 1000 + i);
                    Thread.sleep(50);
                }
            }
        } finally {
            stale.close();
        }
        assertTrue(nextPages.sweptPages() > 0, "nothing swept");
        long pageKeys = single.countKeys(pattern);
        try (Store after = open(RedisEndpoint.parse(single.address()), name, options(Duration.ofSeconds(30)))) {
            after.check().throwIfDamaged();
            assertEquals(after.stats().pagesInUse() - 4, pageKeys);
        }
    }
}
