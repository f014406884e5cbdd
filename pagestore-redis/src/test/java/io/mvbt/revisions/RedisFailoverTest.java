// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.testkit.Profile;
import io.mvbt.testkit.RedisServers;

/**
 * Primaries killed (SIGKILL) under a SYNC writer in another JVM, on a cluster of three masters with
 * a replica each (append-only, fsync every second): by turns the master that holds the meta and
 * the lease, and one that holds only pages. The cluster promotes the replica, the killed node comes
 * back as a replica, and the writer rides through (it waits and sends again) or fails and is
 * reopened. A reader in a third JVM follows, riding through as well. Afterwards every commit the
 * writer acknowledged must be there (when syncs wait for a replica), every snapshot the reader took
 * must have been whole, and the store must check clean. Then the writer is killed and another
 * takes over (its revisions jump ahead, see {@link RemoteWriterPeers#sessionRevision}) while the
 * reader follows. The reader's longest stall in each kill must stay within the failover's duration
 * plus a second. Kills: {@code -Dmvbt.redis.failovers} (2 in CI, 20 long).
 */
class RedisFailoverTest {
    private static final int KILLS = Profile.size("mvbt.redis.failovers", 2, 20);
    /** Commits between kills. */
    private static final int COMMITS_BETWEEN = Profile.size("mvbt.redis.failoverCommits", 40, 200);

    @TempDir
    Path dir;

    @Test
    void aWriterWaitingForOneReplicaRidesThroughPrimaryKillsAndLosesNothing() throws Exception {
        Outcome o = killPrimaries(1);
        assertEquals(0, o.lost, o.toString());
        assertEquals(0, o.writerFailures, o.toString());
        assertEquals(0, o.violations, o.toString());
        assertEquals(0, o.readerFailures, o.toString());
        o.stalls.assertWithinFailoverPlus(1000);
    }

    /** The same without waiting for replicas: what a failover loses then is measured, not asserted. */
    @Test
    void aWriterNotWaitingForReplicasRidesThroughPrimaryKills() throws Exception {
        Outcome o = killPrimaries(0);
        assertEquals(0, o.writerFailures, o.toString());
        o.stalls.assertWithinFailoverPlus(1000);
    }

    private Outcome killPrimaries(int replicas) throws Exception {
        try (RedisServers cluster = RedisServers.cluster(dir.resolve("cluster"), 3, 1, true,
                new RedisServers.Setup(List.of("--appendfsync", "everysec"), List.of(), false))) {
            String name = "failover-" + replicas;
            String endpoint = RedisEndpoint.parse(cluster.address()).toString();
            Path samples = dir.resolve("reader-samples");
            Lines writer = new Lines(ChildJvm.start(null, RedisFailoverWriterChild.class, endpoint, name,
                    Integer.toString(replicas), "20000"));
            Lines successor = null;
            Lines reader = null;
            try {
                writer.awaitCommits(COMMITS_BETWEEN, Duration.ofSeconds(60));
                reader = new Lines(ChildJvm.start(null, RedisReaderChild.class, endpoint, name, "10000", "prefix", "0",
                        Integer.toString(replicas), samples.toString()));
                reader.await("prefix ", Duration.ofSeconds(60));
                List<long[]> failovers = new ArrayList<>();
                for (int kill = 0; kill < KILLS; kill++) {
                    writer.awaitCommits(writer.commits() + COMMITS_BETWEEN, Duration.ofSeconds(60));
                    RedisServers.Node meta = cluster.primaryOf("{mvbt:" + name + "}:meta");
                    RedisServers.Node victim = kill % 2 == 0 ? meta : otherPrimary(cluster, meta);
                    long killed = System.currentTimeMillis();
                    victim.kill();
                    cluster.awaitFailoverOf(victim);
                    long promoted = System.currentTimeMillis();
                    victim.restart();
                    cluster.awaitReplicasInSync();
                    failovers.add(new long[] {killed, promoted, System.currentTimeMillis()});
                }
                writer.awaitCommits(writer.commits() + COMMITS_BETWEEN, Duration.ofSeconds(60));
                // A takeover: the successor waits out the killed writer's lease, and starts its revisions far ahead.
                writer.process.destroyForcibly().waitFor();
                int next = writer.acknowledged().stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
                successor = new Lines(ChildJvm.start(null, RedisFailoverWriterChild.class, endpoint, name,
                        Integer.toString(replicas), "20000", Integer.toString(next)));
                successor.awaitCommits(COMMITS_BETWEEN, Duration.ofSeconds(60));
                successor.process.destroyForcibly().waitFor();
                Thread.sleep(600);
                Lines following = reader;
                assertTrue(reader.last("prefix ") != null, () -> "the reader reported nothing: " + following.tail());
                assertTrue(reader.process.isAlive(), () -> "the reader ended: " + following.tail());
                reader.process.destroyForcibly().waitFor();
                Outcome o = new Outcome(replicas, List.of(writer, successor), reader.last("prefix "),
                        ReaderStalls.of(samples, failovers));
                List<Integer> acknowledged = new ArrayList<>(writer.acknowledged());
                acknowledged.addAll(successor.acknowledged());
                o.lost = lostCommits(cluster, name, acknowledged);
                System.out.println(o);
                return o;
            } finally {
                writer.process.destroyForcibly();
                if (successor != null) {
                    successor.process.destroyForcibly();
                }
                if (reader != null) {
                    reader.process.destroyForcibly();
                }
            }
        }
    }

    private static RedisServers.Node otherPrimary(RedisServers cluster, RedisServers.Node meta) throws Exception {
        for (RedisServers.Node node : cluster.nodes()) {
            if (node != meta && node.alive() && !cluster.replicasOf(node).isEmpty()) {
                return node;
            }
        }
        throw new IllegalStateException("no other master with a replica");
    }

    /** Opens the store as its next writer and counts the acknowledged commits it lacks; it must check clean. */
    private static int lostCommits(RedisServers cluster, String name, List<Integer> acknowledged) {
        RedisStoreOptions options = RedisStoreOptions.defaults().leaseWait(Duration.ofSeconds(30));
        try (Store store = Store.open(RedisPageStore.open(RedisEndpoint.parse(cluster.address()), name, options),
                StoreOptions.defaults().durability(Durability.SYNC))) {
            int lost = 0;
            try (Snapshot s = store.beginRead()) {
                for (int i : acknowledged) {
                    byte[] value = s.get(store.tree("t"), RedisWriterTest.key(i));
                    if (value == null) {
                        lost++;
                    } else {
                        assertArrayEquals(RedisWriterTest.value(i), value, "key " + i);
                    }
                }
            }
            store.check().throwIfDamaged();
            return lost;
        }
    }

    /** What the run saw. */
    private static final class Outcome {
        final int replicas;
        final int acknowledged;
        final int writerFailures;
        final String firstFailure;
        final long maxMicros;
        final long p99Micros;
        final long snapshots;
        final long violations;
        final long readerFailures;
        final String readerProblem;
        final ReaderStalls stalls;
        int lost;

        Outcome(int replicas, List<Lines> writers, String readerLine, ReaderStalls stalls) {
            this.replicas = replicas;
            List<String> failures = new ArrayList<>();
            List<Long> micros = new ArrayList<>();
            int acked = 0;
            for (Lines writer : writers) {
                acked += writer.acknowledged().size();
                failures.addAll(writer.starting("failed "));
                micros.addAll(writer.latencies());
            }
            this.acknowledged = acked;
            this.writerFailures = failures.size();
            this.firstFailure = failures.isEmpty() ? "-" : failures.get(0);
            Collections.sort(micros);
            this.maxMicros = micros.isEmpty() ? 0 : micros.get(micros.size() - 1);
            this.p99Micros = micros.isEmpty() ? 0 : micros.get((int) (micros.size() * 0.99));
            String[] f = readerLine == null ? new String[] {"prefix", "0", "0", "0", "0", "(no report)"}
                    : readerLine.split(" ", 6);
            this.snapshots = Long.parseLong(f[1]);
            this.violations = Long.parseLong(f[3]);
            this.readerFailures = Long.parseLong(f[4]);
            this.readerProblem = f[5];
            this.stalls = stalls;
            assertTrue(acknowledged >= COMMITS_BETWEEN * (KILLS + 3), "the writers acknowledged only " + acknowledged);
            assertTrue(snapshots > 0, "the reader took no snapshot: " + readerLine);
        }

        @Override
        public String toString() {
            return String.format("failover: replicas waited for %d, primaries killed %d, then a writer takeover:"
                    + " %d commits acknowledged, %d lost, %d writer failures (first: %s); commit latency max %.1f ms,"
                    + " p99 %.1f ms; reader: %d snapshots, %d not whole, %d failed (first problem: %s); %s",
                    replicas, KILLS, acknowledged, lost, writerFailures, firstFailure, maxMicros / 1000.0,
                    p99Micros / 1000.0, snapshots, violations, readerFailures, readerProblem, stalls);
        }
    }

    /** What a child JVM printed, read as it prints. */
    private static final class Lines {
        final Process process;
        private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

        Lines(Process process) {
            this.process = process;
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    lines.add("read failed: " + e);
                }
            });
            reader.setDaemon(true);
            reader.start();
        }

        List<String> starting(String prefix) {
            synchronized (lines) {
                return lines.stream().filter(l -> l.startsWith(prefix)).toList();
            }
        }

        String last(String prefix) {
            List<String> found = starting(prefix);
            return found.isEmpty() ? null : found.get(found.size() - 1);
        }

        int commits() {
            return starting("committed ").size();
        }

        List<Integer> acknowledged() {
            return starting("committed ").stream().map(l -> Integer.parseInt(l.split(" ")[1])).toList();
        }

        List<Long> latencies() {
            return new ArrayList<>(starting("committed ").stream().map(l -> Long.parseLong(l.split(" ")[2])).toList());
        }

        void await(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (last(prefix) == null) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    throw new AssertionError("no line starting '" + prefix + "'; the child printed " + tail());
                }
                Thread.sleep(20);
            }
        }

        void awaitCommits(int count, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (commits() < count) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    throw new AssertionError("the writer made " + commits() + " of " + count + " commits; it printed "
                            + tail());
                }
                Thread.sleep(20);
            }
        }

        String tail() {
            synchronized (lines) {
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            }
        }
    }
}
