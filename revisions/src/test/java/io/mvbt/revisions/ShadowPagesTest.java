// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.btree.PageHeader;
import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.local.FilePageStore;

/**
 * The sole writer's recent pages in a shadow file ({@link DirtyPages}): read by snapshots old and
 * new, written into the store file by checkpoints, given back once written, recovered after a
 * kill, and never trusted once lost.
 */
class ShadowPagesTest {
    @TempDir
    Path dir;

    private StoreOptions options() {
        return StoreOptions.defaults().durability(Durability.NORMAL).shadowDirectory(dir.resolve("shm"))
                .checkpointInterval(Duration.ofHours(1));
    }

    private List<Path> shadows() throws IOException {
        Path shm = dir.resolve("shm");
        if (!Files.isDirectory(shm)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(shm)) {
            return files.toList();
        }
    }

    @Test
    void snapshotsOfEveryAgeReadTheirPagesAcrossCheckpointsAndTheShadowGoesAtClose() throws IOException {
        Files.createDirectories(dir.resolve("shm"));
        Path path = dir.resolve("s.mvbt");
        Random random = new Random(7);
        TreeMap<byte[], byte[]> model = ModelHarness.newMap();
        TreeMap<byte[], byte[]> atSnapshot = null;
        try (Store store = Store.open(path, options())) {
            assertEquals(1, shadows().size(), "the writer holds its pages in a shadow");
            Snapshot old = null;
            for (int c = 0; c < 400; c++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = 0; i < 20; i++) {
                        byte[] k = key(random.nextInt(5000));
                        // Values on both sides of the overflow boundary: runs go to the file directly.
                        byte[] v = new byte[random.nextInt(10) == 0 ? 5000 + random.nextInt(9000) : 1 + random.nextInt(200)];
                        random.nextBytes(v);
                        tx.put(t, k, v);
                        model.put(k, v);
                    }
                    if (c % 7 == 0) {
                        int from = random.nextInt(5000);
                        tx.deleteRange(t, key(from), key(from + 30));
                        model.subMap(key(from), true, key(from + 30), false).clear();
                    }
                    if (c == 50) {
                        TreeRoot root = tx.rootOf(t);
                        long address = tx.reader().page(root.page, root.revision,
                                root.depth > 1 ? PageHeader.TYPE_BRANCH : PageHeader.TYPE_LEAF);
                        FilePageStore file = (FilePageStore) store.pages();
                        assertNotEquals(file.storedAddress(root.page), address, "built off the mapping");
                    }
                    tx.commit();
                }
                if (c == 100) {
                    old = store.beginRead();
                    atSnapshot = ModelHarness.newMap();
                    atSnapshot.putAll(model);
                }
                if (c % 60 == 59) {
                    store.sync();
                }
            }
            assertSame(store, store.tree("t"), model);
            assertSame(old, store.tree("t"), atSnapshot);
            old.close();
            store.sync();
            assertTrue(store.check().ok(), store.check().toString());
        }
        assertEquals(List.of(), shadows(), "a closed store leaves no shadow");
        try (Store store = Store.open(path, options().shadowDirectory(null))) {
            assertSame(store, store.tree("t"), model);
            assertTrue(store.check().ok());
        }
    }

    @Test
    void aReadOnlyStoreReadsTheCommitsItsWriterHoldsInTheShadow() throws IOException {
        Files.createDirectories(dir.resolve("shm"));
        Path path = dir.resolve("f.mvbt");
        TreeMap<byte[], byte[]> model = ModelHarness.newMap();
        try (Store writer = Store.open(path, options())) {
            commitRound(writer, model, 0);
            try (Store reader = Store.openReadOnly(path, options())) {
                Tree t = reader.tree("t");
                for (int round = 1; round <= 5; round++) {
                    // Not checkpointed: the file holds none of these pages yet.
                    assertSame(reader, t, model);
                    commitRound(writer, model, round);
                    if (round == 3) {
                        writer.sync();
                    }
                }
                assertSame(reader, t, model);
            }
        }
    }

    private static void commitRound(Store store, TreeMap<byte[], byte[]> model, int round) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = 0; i < 500; i++) {
                byte[] k = key((i * 7 + round * 13) % 1000);
                byte[] v = ("round " + round + " " + i).getBytes(StandardCharsets.UTF_8);
                tx.put(t, k, v);
                model.put(k, v);
            }
            tx.commit();
        }
    }

    private static void assertSame(Store store, Tree tree, TreeMap<byte[], byte[]> expected) {
        try (Snapshot s = store.beginRead()) {
            assertSame(s, tree, expected);
        }
    }

    private static void assertSame(Snapshot s, Tree tree, TreeMap<byte[], byte[]> expected) {
        TreeMap<byte[], byte[]> actual = ModelHarness.newMap();
        try (Cursor c = s.cursor(tree)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                actual.put(c.keyBytes(), c.valueBytes());
            }
        }
        assertEquals(expected.size(), actual.size());
        for (var e : expected.entrySet()) {
            assertArrayEquals(e.getValue(), actual.get(e.getKey()));
        }
    }

    /** Starts a writer that commits the crash workload with no checkpoint and kills it after {@code commits}. */
    private long killWriterAfter(Path path, long commits) throws IOException, InterruptedException {
        Process child = ChildJvm.start(null, CrashChild.class, path.toString(), "NORMAL", "3600000",
                dir.resolve("shm").toString());
        long last = -1;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null;) {
                if (line.startsWith("committed ")) {
                    last = Long.parseLong(line.substring(10));
                    if (last >= commits) {
                        break;
                    }
                } else if (!line.startsWith("ready ")) {
                    throw new AssertionError("child: " + line);
                }
            }
        } finally {
            child.toHandle().destroyForcibly();
            child.waitFor();
        }
        assertTrue(last >= commits, "the child committed " + last);
        return last;
    }

    @Test
    void aKilledWritersCommitsComeBackFromItsShadow() throws Exception {
        Files.createDirectories(dir.resolve("shm"));
        Path path = dir.resolve("k.mvbt");
        long last = killWriterAfter(path, 300);
        assertEquals(1, shadows().size(), "a killed writer leaves its shadow");
        // Opened without naming the directory, the store would fall back to its last checkpoint.
        byte[] before = Files.readAllBytes(path);
        io.mvbt.ShadowDirectoryMissingException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.mvbt.ShadowDirectoryMissingException.class, () -> Store.open(path, StoreOptions.defaults()));
        assertTrue(e.getMessage().contains(".shadow"), e.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(io.mvbt.ShadowDirectoryMissingException.class,
                () -> Store.openReadOnly(path, StoreOptions.defaults()).close());
        assertArrayEquals(before, Files.readAllBytes(path), "nothing was written");
        try (Store store = Store.open(path, options()); Snapshot s = store.beginRead()) {
            Tree tree = store.tree(CrashWorkload.TREE);
            long found = CrashWorkload.counter(s, tree);
            // Every commit that returned is there (more may have returned before the kill landed).
            assertTrue(found >= last, "found " + found + ", committed " + last);
            assertNull(CrashWorkload.difference(s, tree, CrashWorkload.model(found)));
            assertTrue(store.check().ok(), store.check().toString());
            assertEquals(1, shadows().size(), "the recovered shadow went, the new writer's is there");
        }
        assertEquals(List.of(), shadows());
    }

    @Test
    void aLostShadowOpensAtTheLastCheckpointAndNeverAtItsCommits() throws Exception {
        Files.createDirectories(dir.resolve("shm"));
        Path path = dir.resolve("l.mvbt");
        long first = killWriterAfter(path, 50);
        // The reopen checkpoints those 50 commits; the next run's are lost with its shadow.
        try (Store store = Store.open(path, options()); Snapshot s = store.beginRead()) {
            first = CrashWorkload.counter(s, store.tree(CrashWorkload.TREE));
        }
        killWriterAfter(path, first + 200);
        for (Path shadow : shadows()) {
            Files.delete(shadow);
        }
        try (Store store = Store.open(path, options()); Snapshot s = store.beginRead()) {
            Tree tree = store.tree(CrashWorkload.TREE);
            long found = CrashWorkload.counter(s, tree);
            assertEquals(first, found, "opens at the last durable revision");
            assertNull(CrashWorkload.difference(s, tree, CrashWorkload.model(found)));
            assertTrue(store.check().ok(), store.check().toString());
        }
    }
}
