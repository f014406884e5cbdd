// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.mvbt.bench.peers.Peer;

/** The harness's command line, read by picocli. */
class BenchOptionsTest {
    @Test
    void readsEveryOptionAndKeepsTheCommandLineForTheReport() {
        String[] args = {"--suite", "dbbench,history", "--entries", "10k", "--peers", "mvbt,lmdb", "--threads", "2",
            "--durability", "sync", "--seconds", "0.5", "--warmup", "2k", "--heap", "1g", "--child"};
        BenchOptions o = BenchOptions.parse(args);
        assertEquals(List.of(Suite.byName("dbbench"), Suite.byName("history")), o.suites);
        assertEquals(10_000, o.entries);
        assertEquals(10_000, o.reads, "reads follow the size");
        assertEquals(List.of(Peer.parse("mvbt"), Peer.parse("lmdb")), o.peers);
        assertEquals(2, o.threads);
        assertEquals(SyncMode.parse("sync"), o.mode);
        assertEquals(0.5, o.seconds);
        assertEquals(2_000, o.warmup);
        assertEquals("1g", o.heap);
        assertTrue(o.child);
        assertEquals(List.of(args).subList(0, args.length - 1), o.raw, "--child is the parent's, not the user's");
    }

    @Test
    void aWrongCommandLineSaysWhatIsWrongAndHelpIsTheUsage() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--bogus"}))
                .getMessage().contains("--bogus"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--threads", "many"})).getMessage().contains("many"));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--threads", "0"}));
        assertEquals("", assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--help"})).getMessage());
        String usage = BenchOptions.usage();
        assertTrue(usage.contains("--suite") && usage.contains("--entries") && !usage.contains("--child"), usage);
    }
}
