// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several sizes in one run: a report per size, and the curve across them. */
class CurveTest {
    @Test
    void sizesAreParsedAsAList() {
        BenchOptions o = BenchOptions.parse(new String[] {"--entries", "10k,1_000_000,2M"});
        assertEquals(List.of(10_000L, 1_000_000L, 2_000_000L), o.sizes);
        assertEquals(10_000, o.entries);
        assertEquals(2_000_000, o.at(2_000_000).reads, "reads follow the size unless given");
        assertEquals(7, BenchOptions.parse(new String[] {"--entries", "1k,2k", "--reads", "7"}).at(2_000).reads);
        assertEquals("10M", Curve.label(10_000_000));
        assertEquals("2500", Curve.label(2_500));
    }

    @Test
    void aRunAtTwoSizesReportsEachAndTheCurve(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        BenchOptions o = BenchOptions.parse(new String[] {"--suite", "dbbench", "--entries", "2000,4000", "--peers",
            "mvbt,skiplist", "--warmup", "500", "--heap", "256m", "--dir", tmp.resolve("stores").toString(), "--out",
            out.toString()});

        assertEquals(0, Orchestrator.run(o));

        assertTrue(Files.exists(out.resolve("2k").resolve("dbbench.csv")));
        assertTrue(Files.readString(out.resolve("4k").resolve("dbbench.csv")).contains("dbbench,4000,nosync,1,mvbt,"));
        String curve = Files.readString(out.resolve("curve.md"));
        assertTrue(curve.contains("| phase | store | 2k | 4k | 4k ÷ 2k |"), curve);
        for (String phase : new DbBenchSuite().phases()) {
            for (String store : List.of("mvbt", "skiplist")) {
                String row = "| " + phase + " | " + store + " | ";
                String line = curve.lines().filter(l -> l.startsWith(row)).findFirst().orElse("");
                assertTrue(line.matches(".*\\| [0-9.,]+ \\| [0-9.,]+ \\| [0-9.]+x \\|"), "row " + row + ": " + line);
            }
        }
        assertTrue(curve.contains("bytes on disk per live entry"), curve);
        assertTrue(Files.readString(out.resolve("report.md")).contains("## Across sizes"));
        String svg = Files.readString(out.resolve("dbbench-curve.svg"));
        assertTrue(svg.startsWith("<svg") && svg.trim().endsWith("</svg>"), svg);
        assertEquals(2 * new DbBenchSuite().phases().size(), svg.split("<polyline ", -1).length - 1,
                "a line per store in every phase's panel");
    }
}
