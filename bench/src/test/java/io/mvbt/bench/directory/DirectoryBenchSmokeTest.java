// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directory benchmark on a few thousand entries with very short phases: both stores, each in
 * its own child JVM, every search verified against the model. Keeps it from rotting; measures nothing.
 */
class DirectoryBenchSmokeTest {
    @Test
    void bothStoresRunEverySearchAloneAndWithTheWriterAndAgreeOnTheCounts(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        DirectoryBenchOptions o = DirectoryBenchOptions.parse(new String[] {"--entries", "3000", "--seconds", "0.2",
            "--warmup", "0.1", "--heap", "512m", "--dir", tmp.resolve("stores").toString(), "--out", out.toString()});

        assertEquals(0, DirectoryBench.run(o), "a store failed or a count differed; see the output above");

        List<String> csv = Files.readAllLines(out.resolve("directory.csv"));
        DirectoryData data = new DirectoryData(3000);
        for (String store : DirectoryBenchOptions.STORES) {
            for (DirectorySearch s : DirectorySearch.all(data)) {
                for (String phase : List.of("alone", "writer")) {
                    String row = store + ",3000,1," + s.name() + ",";
                    assertTrue(csv.stream().anyMatch(l -> l.startsWith(row) && l.contains("," + phase + ",")),
                            "no result for " + row + " " + phase);
                }
            }
        }
        String md = Files.readString(out.resolve("directory.md"));
        assertTrue(md.contains("| base-object | 1 |"), md);
        assertTrue(md.contains("| one-level | 5 |"), md);
        assertTrue(md.contains("| subtree | 10 |"), md);
        assertTrue(md.contains("Verified:"), md);
        assertTrue(md.contains("#### Plans of filter-and-or-not") && md.contains("#### Plans of filter-range")
                && md.contains("#### Plans of filter-between"), md);
        assertTrue(md.contains("SEARCH in SUBTREE of dc=example,dc=com"), "mvbt's plan is printed");
        assertTrue(md.contains("EXISTS"), "SQLite's statement is printed");
    }

    @Test
    void aCountThatDiffersBetweenTheStoresFailsTheRun() {
        StoreResults mvbt = new StoreResults("mvbt");
        StoreResults sqlite = new StoreResults("sqlite");
        for (StoreResults r : List.of(mvbt, sqlite)) {
            r.accept(StoreResults.line(StoreResults.EXPECTED, "subtree", 10));
            r.accept(StoreResults.line(StoreResults.VERIFIED, "subtree", 10));
        }
        assertNull(DirectoryBench.compareCounts(List.of(mvbt, sqlite)));

        sqlite.verified.put("subtree", 9L);
        assertNotNull(DirectoryBench.compareCounts(List.of(mvbt, sqlite)));
        sqlite.verified.put("subtree", 10L);
        sqlite.failure = "verification failed";
        assertNotNull(DirectoryBench.compareCounts(List.of(mvbt, sqlite)));
    }

    @Test
    void theGeneratedDirectoryHasExactlyTheAskedSizeAndExactScopes() {
        for (long n : new long[] {205, 1000, 3000, 10_001, 123_457}) {
            DirectoryData data = new DirectoryData(n);
            long[] count = {0};
            data.forEach(e -> count[0]++);
            assertEquals(n, count[0], "entries generated for " + n);
            assertTrue(data.people <= data.units * DirectoryData.UNIT_SIZE, "every person has a unit");
        }
        DirectoryData data = new DirectoryData(3000);
        SearchModel model = new SearchModel(data.schema, DirectorySearch.all(data));
        data.forEach(model::accept);
        List<DirectorySearch> searches = DirectorySearch.all(data);
        assertEquals(1, model.count(searches.get(0)));
        assertEquals(5, model.count(searches.get(1)));
        assertEquals(10, model.count(searches.get(2)));
        assertTrue(model.count(searches.get(3)) > 0 && model.count(searches.get(4)) > 0
                && model.count(searches.get(5)) > 0);
    }
}
