// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.List;
import java.util.Locale;

/** A named sequence of phases run against one store in one child JVM. */
public interface Suite {
    String name();

    /** Phase names in report order (footprints are reported separately). */
    List<String> phases();

    void run(RunContext ctx);

    List<Suite> ALL = List.of(new DbBenchSuite(), new HistorySuite(), new DeleteRangeSuite(),
            new ReadWhileWritingSuite(), new FillRandomSuite());

    static Suite byName(String name) {
        String want = name.trim().toLowerCase(Locale.ROOT);
        for (Suite s : ALL) {
            if (s.name().equals(want)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown suite '" + name
                + "'; known: dbbench, history, deleterange, readwhilewriting, fillrandom");
    }
}
