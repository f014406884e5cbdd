// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.ReadOnlyStoreException;
import io.mvbt.SnapshotExpiredException;
import io.mvbt.StorageException;
import io.mvbt.pagestore.RemotePageStore;
import io.mvbt.pagestore.SharedPages;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.testkit.ForwardingPageStore;
import io.mvbt.testkit.RedisServers;

/**
 * Readers of a store on Redis beside its writer: in this JVM and in others, on a cluster. Each
 * writer round rewrites every key with the round's number, so a snapshot that sees two rounds, or
 * a page that its registration failed to protect, is caught.
 */
class RedisReaderTest {
    private static final int KEYS = 300;

    @TempDir
    static Path dir;
    private static RedisServers cluster;
    private static int names;

    @BeforeAll
    static void startRedis() throws Exception {
        cluster = RedisServers.cluster(dir.resolve("cluster"), 3);
    }

    @AfterAll
    static void stopRedis() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void round(Store writer, int round) {
        try (WriteTxn tx = writer.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), ("round " + round + " of key " + i + " " + "x".repeat(round % 40))
                        .getBytes(StandardCharsets.UTF_8));
            }
            tx.commit();
        }
    }

    /** Rewrites key 0 alone and returns how many pages the commit freed. */
    private static long oneKeyFreeing(Store writer, int round) {
        long before = writer.stats().pagesInUse();
        try (WriteTxn tx = writer.beginWrite()) {
            tx.put(tx.createTreeIfAbsent("t"), key(0), ("round " + round + " of key 0").getBytes(StandardCharsets.UTF_8));
            tx.commit();
        }
        StoreStats after = writer.stats();
        return before + after.lastCommitPages() - after.pagesInUse();
    }

    /** "round R" if the snapshot holds one whole round R, else what is wrong. */
    static String checkRound(Snapshot s, Tree t) {
        int round = -1;
        int count = 0;
        try (Cursor c = s.cursor(t)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                String v = new String(c.valueBytes(), StandardCharsets.UTF_8);
                String[] words = v.split(" ");
                int r = Integer.parseInt(words[1]);
                if (round >= 0 && r != round) {
                    return "rounds " + round + " and " + r + " in one snapshot";
                }
                if (!words[4].equals(Integer.toString(count))) {
                    return "key " + count + " holds " + v;
                }
                round = r;
                count++;
            }
        }
        return count == KEYS ? "round " + round : count + " keys, not " + KEYS;
    }

    private static Store writer(String name) {
        return Store.open(RedisPageStore.open(RedisEndpoint.parse(cluster.address()), name, RedisStoreOptions.defaults()),
                StoreOptions.defaults().durability(Durability.SYNC));
    }

    private static Store reader(String name) {
        return reader(name, RedisStoreOptions.defaults().readerLease());
    }

    private static Store reader(String name, Duration lease) {
        return Store.open(RedisPageStore.openReader(RedisEndpoint.parse(cluster.address()), name,
                RedisStoreOptions.defaults().readerLease(lease)), StoreOptions.defaults());
    }

    /** What a reader that stalled past its lease finds: the writer has dropped its registration. */
    private static void dropRegistrations(String name) throws Exception {
        cluster.cli("DEL", "{mvbt:" + name + "}:readers");
    }

    @Test
    void aReaderFollowsTheWriterAndItsOldSnapshotsStayWhole() throws Exception {
        String name = "reader-test-" + (++names);
        try (Store writer = writer(name)) {
            round(writer, 0);
            try (Store reader = reader(name)) {
                // Nothing of it is read yet: its pages come from Redis when it is read, at the end.
                Snapshot old = reader.beginRead();
                for (int r = 1; r <= 30; r++) {
                    round(writer, r);
                }
                // Long after the replacements: only the old snapshot's registration holds round 0.
                Thread.sleep(1000);
                for (int r = 31; r <= 35; r++) {
                    round(writer, r);
                }
                try (Snapshot now = reader.beginRead()) {
                    assertEquals("round 35", checkRound(now, reader.tree("t")));
                }
                assertEquals("round 0", checkRound(old, reader.tree("t")));
                assertTrue(writer.stats().pagesWaitingForReaders() > 0, writer.stats().toString());
                old.close();
                assertThrows(ReadOnlyStoreException.class, reader::beginWrite);
                assertThrows(ReadOnlyStoreException.class, reader::sync);
            }
            writer.check().throwIfDamaged();
        }
    }

    @Test
    void readersInOtherProcessesReadWholeRoundsWhileTheWriterCommits() throws Exception {
        String name = "reader-test-" + (++names);
        int seconds = Integer.getInteger("mvbt.redisReaders.seconds", 6);
        try (Store writer = writer(name)) {
            round(writer, 0);
            List<Process> children = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                children.add(ChildJvm.start(null, RedisReaderChild.class, RedisEndpoint.parse(cluster.address()).toString(), name,
                        "3000", "check", Integer.toString(seconds)));
            }
            int round = 1;
            while (children.stream().anyMatch(Process::isAlive)) {
                round(writer, round++);
            }
            for (Process child : children) {
                String[] out = ChildJvm.firstLine(child, "checked");
                String detail = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                        .readLine();
                assertEquals("0", out[3], "reader errors: " + detail);
                assertTrue(Long.parseLong(out[1]) > 10 && Integer.parseInt(out[2]) > 2,
                        "a reader checked " + out[1] + " snapshots of " + out[2] + " rounds; the writer made " + round);
            }
            writer.check().throwIfDamaged();
        }
    }

    @Test
    void aReaderWhoseRegistrationLapsedExpiresItsSnapshotsInsteadOfReadingFreedPages() throws Exception {
        String name = "reader-test-" + (++names);
        try (Store writer = writer(name)) {
            round(writer, 0);
            try (Store reader = reader(name, Duration.ofMillis(1500))) {
                Snapshot old = reader.beginRead();
                // The writer then frees the pages of round 0 (deleted from Redis at its next sync).
                dropRegistrations(name);
                for (int r = 1; r <= 10; r++) {
                    round(writer, r);
                }
                // Its next renewal (every third of the lease) finds the registration gone.
                Thread.sleep(1500);
                Tree t = reader.tree("t");
                SnapshotExpiredException e = assertThrows(SnapshotExpiredException.class, () -> checkRound(old, t));
                assertTrue(e.getMessage().contains("lapsed"), e.getMessage());
                old.close();
                try (Snapshot now = reader.beginRead()) {
                    assertEquals("round 10", checkRound(now, t));
                }
            }
            writer.check().throwIfDamaged();
        }
    }

    @Test
    void aLapseFoundByTheNextSnapshotExpiresTheOlderOnes() throws Exception {
        String name = "reader-test-" + (++names);
        try (Store writer = writer(name)) {
            round(writer, 0);
            // A long lease: no refresh comes before the next snapshot does.
            try (Store reader = reader(name, Duration.ofSeconds(60))) {
                Snapshot old = reader.beginRead();
                dropRegistrations(name);
                round(writer, 1);
                Tree t = reader.tree("t");
                try (Snapshot now = reader.beginRead()) {
                    assertEquals("round 1", checkRound(now, t));
                }
                assertThrows(SnapshotExpiredException.class, () -> checkRound(old, t));
                old.close();
                // Registered afresh: a snapshot the writer outlives is still held.
                try (Snapshot held = reader.beginRead()) {
                    for (int r = 2; r <= 12; r++) {
                        round(writer, r);
                    }
                    Thread.sleep(300);
                    round(writer, 13);
                    assertEquals("round 1", checkRound(held, t));
                }
            }
            writer.check().throwIfDamaged();
        }
    }

    @Test
    void aSnapshotOpenWhoseRegistrationFailedLeavesNothingRegistered() throws Exception {
        String name = "reader-test-" + (++names);
        try (Store writer = writer(name)) {
            round(writer, 0);
            RedisPageStore redis = RedisPageStore.openReader(RedisEndpoint.parse(cluster.address()), name,
                    RedisStoreOptions.defaults().readerLease(Duration.ofMillis(900)));
            AtomicBoolean loseReply = new AtomicBoolean();
            try (Store reader = Store.open(new LostHoldReply(redis, loseReply), StoreOptions.defaults())) {
                loseReply.set(true);
                StorageException e = assertThrows(StorageException.class, reader::beginRead);
                assertTrue(e.getMessage().contains("lost"), e.getMessage());
                assertEquals(0, reader.readers().size());
                // Renewals (every third of the lease) send what the reader holds: nothing now. Left
                // registered, the revision would be renewed for as long as the reader lives.
                long deadline = System.nanoTime() + 10_000_000_000L;
                String registered;
                while (!(registered = cluster.cli("HGETALL", "{mvbt:" + name + "}:readers")).isBlank()) {
                    assertTrue(System.nanoTime() < deadline, "still registered after the failed open: " + registered);
                    Thread.sleep(100);
                }
                try (Snapshot s = reader.beginRead()) {
                    assertEquals("round 0", checkRound(s, reader.tree("t")));
                }
            }
            writer.check().throwIfDamaged();
        }
    }

    /**
     * A reader's page store whose registration reaches Redis once but whose reply is lost: the
     * snapshot open fails after the revision went out.
     */
    private static final class LostHoldReply extends ForwardingPageStore implements RemotePageStore {
        private final RedisPageStore redis;
        private final SharedPages shared;
        private final SharedPages losing;

        LostHoldReply(RedisPageStore redis, AtomicBoolean loseReply) {
            super(redis);
            this.redis = redis;
            this.shared = redis.shared();
            this.losing = new SharedPages() {
                @Override
                public boolean readOnly() {
                    return shared.readOnly();
                }

                @Override
                public void refreshMeta(boolean forSnapshot) {
                    shared.refreshMeta(forSnapshot);
                }

                @Override
                public boolean hold(long[] revisions, int count, boolean mustReach) {
                    boolean reached = shared.hold(revisions, count, mustReach);
                    if (mustReach && loseReply.getAndSet(false)) {
                        throw new StorageException("test: the reply of the registration was lost");
                    }
                    return reached;
                }

                @Override
                public void onLapse(Consumer<long[]> lapsed) {
                    shared.onLapse(lapsed);
                }

                @Override
                public Held heldElsewhere(long maxAgeNanos) {
                    return shared.heldElsewhere(maxAgeNanos);
                }
            };
        }

        @Override
        public SharedPages shared() {
            return losing;
        }

        @Override
        public long beginSpan() {
            return pages.beginSpan();
        }

        @Override
        public void endSpan(long span) {
            pages.endSpan(span);
        }

        @Override
        public void prefetch(long[] pageNos, int count) {
            redis.prefetch(pageNos, count);
        }

        @Override
        public Runnable prepareSync() {
            return redis.prepareSync();
        }

        @Override
        public Runnable preparePages() {
            return redis.preparePages();
        }

        @Override
        public void discard(long pageNo, int n) {
            redis.discard(pageNo, n);
        }
    }

    @Test
    void aKilledReaderStopsHoldingPagesWhenItsRegistrationRunsOut() throws Exception {
        String name = "reader-test-" + (++names);
        try (Store writer = writer(name)) {
            round(writer, 0);
            Process child = ChildJvm.start(null, RedisReaderChild.class, RedisEndpoint.parse(cluster.address()).toString(), name,
                    "2000", "hold", "0");
            try {
                ChildJvm.firstLine(child, "holding");
                for (int r = 1; r <= 10; r++) {
                    round(writer, r);
                }
                // Every page of round 0 was freed, and its reader holds them. A one-key commit frees a
                // few pages: at most those wait besides (for readers that may have read the revision
                // before it), so the reader's pages are what is left above them.
                long freed = oneKeyFreeing(writer, 11);
                StoreStats live = writer.stats();
                assertTrue(live.pagesWaitingForReaders() > freed, "the live reader's pages were let go: " + live);
            } finally {
                child.toHandle().destroyForcibly();
                child.waitFor();
            }
            // Its registration runs out after 2 s; a look after that lets its pages go.
            long deadline = System.nanoTime() + 30_000_000_000L;
            int r = 12;
            long freed;
            do {
                assertTrue(System.nanoTime() < deadline, "pages still held for a dead reader: " + writer.stats());
                Thread.sleep(500);
                freed = oneKeyFreeing(writer, r++);
            } while (writer.stats().pagesWaitingForReaders() > freed);
            writer.check().throwIfDamaged();
        }
    }
}
