// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each process maps the store file in ranges of its own, which follow how the file grew while it
 * watched; a writer places a multi-page value within one of its ranges, which may cross one of
 * another process's. Every process must read every value whatever its ranges: issue 33, finding
 * 5. A read-only store in this JVM has mappings of its own, as a process does; writers that take
 * turns run in child JVMs.
 */
class RunsAcrossMappingsTest {
    @TempDir
    Path dir;

    static byte[] value(int size, int seed) {
        byte[] v = new byte[size];
        new Random(seed).nextBytes(v);
        return v;
    }

    private static byte[] key(int i) {
        return ("value-" + i).getBytes();
    }

    private static void put(Store store, int i, int size) {
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(tx.createTreeIfAbsent("v"), key(i), value(size, i));
            tx.commit(Durability.SYNC);
        }
    }

    private static void deleteAll(Store store) {
        try (WriteTxn tx = store.beginWrite()) {
            tx.dropTree(store.tree("v"));
            tx.commit(Durability.SYNC);
        }
    }

    private static void assertReads(Store reader, int i, int size) {
        try (Snapshot s = reader.beginRead()) {
            assertArrayEquals(value(size, i), s.get(reader.tree("v"), key(i)), "value " + i + " of " + size + " bytes");
        }
        assertTrue(reader.check().ok(), reader.check().toString());
    }

    /**
     * The case: a reader maps a 3 MiB file whole; the writer empties it, closes (the file
     * shrinks to 1 MiB), opens again and grows it by the values it puts, in ranges of its own.
     */
    @Test
    void aReaderReadsValuesAWriterPlacedAcrossItsRangesAfterARestart() {
        Path path = dir.resolve("restart.mvbt");
        try (Store writer = Store.open(path)) {
            for (int i = 0; i < 14; i++) {
                put(writer, i, 200_000);
            }
        }
        try (Store reader = Store.openReadOnly(path)) {
            try (Store writer = Store.open(path)) {
                deleteAll(writer);
            }
            try (Store writer = Store.open(path)) {
                put(writer, 100, 3_000_000);
                assertReads(reader, 100, 3_000_000);
                put(writer, 101, 2_400_000);
                assertReads(reader, 101, 2_400_000);
            }
        }
    }

    /**
     * Values of many sizes put as the file grows, shrinks and grows again under writers opened
     * anew (each maps the file in ranges of its own shape), each read by a reader that has watched
     * since the start and by one that maps the file as it is now.
     */
    @Test
    void everySizeAcrossEveryBoundaryReadsTheSameInEveryMapping() {
        Path path = dir.resolve("sweep.mvbt");
        Random random = new Random(3);
        Store writer = Store.open(path);
        try (Store early = Store.openReadOnly(path)) {
            for (int i = 0; i < 40; i++) {
                // From one page to several mapping ranges, with sizes near the 1 MiB growth step.
                int size = switch (i % 4) {
                    case 0 -> 4_000 + random.nextInt(100_000);
                    case 1 -> (1 << 20) - 2_000 + random.nextInt(4_000);
                    case 2 -> 1_500_000 + random.nextInt(2_000_000);
                    default -> random.nextInt(600_000);
                };
                put(writer, i, size);
                assertReads(early, i, size);
                if (i % 10 == 9) {
                    try (Store late = Store.openReadOnly(path)) {
                        assertReads(late, i, size);
                    }
                    // Emptied, closed (the file shrinks), and opened again: ranges of a new shape.
                    deleteAll(writer);
                    writer.close();
                    writer = Store.open(path);
                }
            }
        } finally {
            writer.close();
        }
    }

    /**
     * Writers that take turns: this one grows the file in 1 MiB steps and then frees it all; a
     * writer in another process puts a 1.5 MB value in a range of its own. This writer reads it,
     * commits, syncs, checks and checkpoints in the background, and goes on writing.
     */
    @Test
    void aWriterReadsAValueAnotherProcessPlacedAcrossItsRanges() throws Exception {
        Path path = dir.resolve("shared.mvbt");
        StoreOptions shared = StoreOptions.defaults().sharedWriters(true).writeTimeout(Duration.ofSeconds(30))
                .checkpointInterval(Duration.ofMillis(200));
        try (Store a = Store.open(path, shared)) {
            for (int i = 0; i < 16; i++) {
                put(a, i, 200_000);
            }
            deleteAll(a);
            String child = ChildJvm.run(ValueChild.class, path.toString(), "big", "1500000");
            assertTrue(child.startsWith("OK"), child);
            try (Snapshot s = a.beginRead()) {
                assertArrayEquals(value(1_500_000, "big".hashCode()), s.get(a.tree("v"), "big".getBytes()));
            }
            put(a, 200, 10);
            a.sync();
            Thread.sleep(400);
            assertTrue(a.check().ok(), a.check().toString());
            put(a, 201, 10);
        }
        try (Store reopened = Store.open(path); Snapshot s = reopened.beginRead()) {
            assertArrayEquals(value(1_500_000, "big".hashCode()), s.get(reopened.tree("v"), "big".getBytes()));
            assertTrue(reopened.check().ok(), reopened.check().toString());
        }
        assertTrue(Files.size(path) > 0);
    }
}
