// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.bench.peers.Peer;

/**
 * The whole harness on a few thousand entries: every suite, every store, each in its own child
 * JVM, with every read verified. Keeps the comparison from rotting; measures nothing.
 */
class SmokeTest {
    @Test
    void everySuiteRunsOnEveryStoreAndVerifiesItsReads(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        // Every peer, also those a run leaves out unless named.
        String peers = String.join(",", java.util.Arrays.stream(Peer.values()).map(Peer::id).toList());
        BenchOptions o = BenchOptions.parse(new String[] {"--suite", "all", "--peers", peers, "--entries", "3000",
            "--seconds", "0.3",
            "--warmup", "1000", "--heap", "512m", "--dir", tmp.resolve("stores").toString(), "--out", out.toString()});

        assertEquals(0, Orchestrator.run(o), "a store failed or misread; see the output above");

        for (Suite suite : Suite.ALL) {
            List<String> csv = Files.readAllLines(out.resolve(suite.name() + ".csv"));
            for (Peer peer : Peer.values()) {
                for (String phase : suite.phases()) {
                    String row = suite.name() + ",3000,nosync,1," + peer.id() + ",phase," + phase + ",";
                    assertTrue(csv.stream().anyMatch(l -> l.startsWith(row)), "no result for " + row);
                }
            }
            if (suite instanceof ReadWhileWritingSuite) {
                for (Peer peer : Peer.values()) {
                    for (String phase : List.of("readonly", "rww-read", "rww-write")) {
                        String row = suite.name() + ",3000,nosync,1," + peer.id() + ",latency," + phase + ",";
                        String line = csv.stream().filter(l -> l.startsWith(row)).findFirst().orElse(null);
                        assertTrue(line != null, "no latencies for " + row);
                        String[] f = line.split(",");
                        long p50 = Long.parseLong(f[16]);
                        long p99 = Long.parseLong(f[17]);
                        long p999 = Long.parseLong(f[18]);
                        long max = Long.parseLong(f[19]);
                        assertTrue(Long.parseLong(f[7]) > 0 && 0 < p50 && p50 <= p99 && p99 <= p999 && p999 <= max, line);
                    }
                }
            }
            String svg = Files.readString(out.resolve(suite.name() + "-ratios.svg"));
            assertTrue(svg.startsWith("<svg") && svg.trim().endsWith("</svg>"));
        }
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("Machine: nproc"));
        assertTrue(report.contains("Page touch: a store to a mapped page costs"), "no page-touch figure in the report");
        assertFalse(Files.exists(tmp.resolve("stores").resolve("page-touch-probe")), "the probe left its file");
        assertTrue(report.contains("mvbt/peer throughput ratio"));
        assertTrue(report.contains("Latency of each operation: p50 / p99 / p99.9 / max"), "no latency table in the report");
        assertTrue(report.contains("Cost beyond the work: minor page faults per operation"), "no cost table in the report");
        assertTrue(report.matches("(?s).*\\| fillrandom \\| [0-9.]+, [0-9]+ GC [0-9]+ ms \\|.*"),
                "no faults per operation for fillrandom");
    }
}
