// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The directory benchmark's command line, read by picocli. */
class DirectoryBenchOptionsTest {
    @Test
    void readsEveryOptionAndLeavesTheChildsOutOfTheReportedCommandLine() {
        String[] args = {"--entries", "10k", "--seconds", "0.5", "--warmup", "0", "--threads", "2", "--writer-rate", "0",
            "--stores", "sqlite", "--dir", "/tmp/x", "--out", "/tmp/y", "--heap", "1g", "--child", "sqlite"};
        DirectoryBenchOptions o = DirectoryBenchOptions.parse(args);
        assertEquals(10_000, o.entries);
        assertEquals(0.5, o.seconds);
        assertEquals(0, o.warmup);
        assertEquals(2, o.threads);
        assertEquals(0, o.writerRate);
        assertEquals(List.of("sqlite"), o.stores);
        assertEquals(Path.of("/tmp/x"), o.dir);
        assertEquals(Path.of("/tmp/y"), o.out);
        assertEquals("1g", o.heap);
        assertEquals("sqlite", o.child);
        assertEquals(List.of(args).subList(0, args.length - 2), o.raw);
        // What a parent hands its child reads back as the same run.
        DirectoryBenchOptions child = DirectoryBenchOptions.parse(
                o.childArgs("mvbt", Path.of("/tmp/z")).subList(1, 15).toArray(String[]::new));
        assertEquals("mvbt", child.child);
        assertEquals(o.entries, child.entries);
        assertEquals(o.writerRate, child.writerRate);
    }

    @Test
    void aWrongCommandLineSaysWhatIsWrongAndHelpIsTheUsage() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> DirectoryBenchOptions.parse(new String[] {"--stores", "mvbt,oracle"})).getMessage().contains("oracle"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> DirectoryBenchOptions.parse(new String[] {"--bogus"})).getMessage().contains("--bogus"));
        assertThrows(IllegalArgumentException.class, () -> DirectoryBenchOptions.parse(new String[] {"--threads", "0"}));
        assertEquals("", assertThrows(IllegalArgumentException.class,
                () -> DirectoryBenchOptions.parse(new String[] {"--help"})).getMessage());
        assertTrue(DirectoryBenchOptions.usage().contains("--writer-rate"));
    }
}
