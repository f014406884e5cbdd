// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How long a reader that opens snapshots back to back ({@link RedisReaderChild}, mode prefix)
 * went without a whole snapshot in each kill of a Redis primary: from the kill until the killed
 * node, restarted, is a replica in sync again, the longest time without a whole snapshot (counted
 * from the kill at the earliest), and the latency of the snapshots that ended then (max, p99).
 */
final class ReaderStalls {
    /**
     * One kill: when the primary was killed and when the cluster had promoted its replica (epoch
     * ms), and what the reader saw until the killed node was a replica in sync again.
     */
    record Failover(long killedMillis, long doneMillis, long stallMillis, long maxMicros, long p99Micros, int snapshots) {
        long millis() {
            return doneMillis - killedMillis;
        }
    }

    final List<Failover> failovers;

    private ReaderStalls(List<Failover> failovers) {
        this.failovers = failovers;
    }

    /** From the reader's samples ("END-EPOCH-MS MICROS OK" lines) and the kills ({killed, promoted, in sync} epoch ms). */
    static ReaderStalls of(Path samples, List<long[]> failovers) throws IOException {
        List<long[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(samples)) {
            String[] f = line.split(" ");
            if (f.length == 3) {
                rows.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        List<Failover> measured = new ArrayList<>();
        for (long[] failover : failovers) {
            long killed = failover[0];
            long done = failover[1];
            long synced = failover[2];
            long stall = 0;
            long lastWhole = -1;
            List<Long> latencies = new ArrayList<>();
            for (long[] row : rows) {
                long end = row[0];
                if (end >= killed && end <= synced) {
                    latencies.add(row[1]);
                }
                if (row[2] == 1) {
                    // The gap from the whole snapshot before to this one counts if it covers part of the failover.
                    if (lastWhole >= 0 && end >= killed && lastWhole <= synced) {
                        stall = Math.max(stall, end - Math.max(lastWhole, killed));
                    }
                    lastWhole = end;
                }
            }
            if (lastWhole < synced) {
                stall = Long.MAX_VALUE; // no whole snapshot after the kill's end
            }
            Collections.sort(latencies);
            measured.add(new Failover(killed, done, stall, latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1),
                    latencies.isEmpty() ? 0 : latencies.get((int) (latencies.size() * 0.99)), latencies.size()));
        }
        return new ReaderStalls(measured);
    }

    /** Fails unless the reader's longest stall in each failover was at most its duration plus {@code slackMillis}. */
    void assertWithinFailoverPlus(long slackMillis) {
        for (Failover f : failovers) {
            assertTrue(f.stallMillis <= f.millis() + slackMillis, "the reader stalled " + f.stallMillis
                    + " ms in a failover of " + f.millis() + " ms: " + this);
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("reader in each failover (failover ms / longest stall ms / snapshot"
                + " latency max, p99 ms over N):");
        for (Failover f : failovers) {
            b.append(String.format(" %d / %d / %.1f, %.1f over %d;", f.millis(), f.stallMillis, f.maxMicros / 1000.0,
                    f.p99Micros / 1000.0, f.snapshots));
        }
        return b.toString();
    }
}
