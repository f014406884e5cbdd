// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * The redo log: SYNC commits and {@link Store#sync()} made durable by the log alone, every kind of
 * change replayed after a power cut that lost the pages, the barrier of a transaction too large to
 * record, and logs that do not belong to the store refused before anything is written.
 */
class RedoLogTest {
    private static final StoreOptions LOGGED = StoreOptions.defaults().durability(Durability.NORMAL)
            .checkpointInterval(Duration.ofHours(1)).redoLog(true);
    private static final long HIGH = BootId.HIGH;
    private static final long LOW = BootId.LOW;

    @TempDir
    Path dir;

    @AfterEach
    void restore() {
        BootId.HIGH = HIGH;
        BootId.LOW = LOW;
        RedoLog.segmentBytes = 64L << 20;
        RedoRecord.maxBytes = RedoRecord.MAX_BYTES;
    }

    @Test
    void syncCommitsAreDurableByTheLogAndCloseRemovesIt() {
        Path file = dir.resolve("s.mvbt");
        try (Store store = Store.open(file, StoreOptions.defaults().redoLog(true))) {
            for (int i = 0; i < 200; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(tx.createTreeIfAbsent("t"), key(i), ("v" + i).getBytes());
                    tx.commit(Durability.SYNC);
                }
                assertEquals(store.revision(), store.stats().durableRevision());
            }
            assertTrue(RedoFiles.present(file));
            assertEquals(0, store.stats().checkpoints(), "no SYNC commit checkpointed");
        }
        assertFalse(RedoFiles.present(file), "close checkpointed everything, so the log went");
        try (Store store = Store.open(file)) {
            try (Snapshot s = store.beginRead()) {
                assertEquals(200, s.count(store.tree("t")));
            }
        }
    }

    /** Every kind of change, with keys and values of every size, replayed onto pages that never reached the disk. */
    @Test
    void everyKindOfChangeIsReplayedAfterAPowerCut() {
        for (int trial = 0; trial < 40; trial++) {
            Random random = new Random(trial * 0x9E3779B97F4A7C15L);
            RedoLog.segmentBytes = random.nextBoolean() ? 64L << 20 : 2048 + random.nextInt(20_000);
            PowerCutPageStore disk = new PowerCutPageStore(4096);
            PowerCutRedoStorage log = new PowerCutRedoStorage();
            Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
            long revision;
            try (Store store = Store.over(disk, LOGGED, true, log)) {
                int commits = 1 + random.nextInt(60);
                for (int c = 0; c < commits; c++) {
                    change(store, model, random);
                    if (random.nextInt(10) == 0) {
                        store.compact();
                    }
                }
                store.sync();
                revision = store.revision();
                BootId.reboot();
                Store recovered = Store.over(PowerCutPageStore.of(disk.cut(random), 4096), LOGGED, false,
                        log.cut(random));
                try (recovered) {
                    assertEquals(revision, recovered.revision(), "trial " + trial);
                    recovered.check().throwIfDamaged();
                    assertSame(recovered, model, "trial " + trial);
                }
            }
        }
    }

    @Test
    void aTransactionTooLargeToRecordSyncsItsPages() {
        RedoRecord.maxBytes = 8192;
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        PowerCutRedoStorage log = new PowerCutRedoStorage();
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        Random random = new Random(7);
        try (Store store = Store.over(disk, LOGGED, true, log)) {
            change(store, model, random);
            long syncs = disk.syncs();
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTreeIfAbsent("big");
                TreeMap<byte[], byte[]> m = model.computeIfAbsent("big", n -> ModelHarness.newMap());
                for (int i = 0; i < 500; i++) {
                    tx.put(t, key(i), new byte[100]);
                    m.put(key(i), new byte[100]);
                }
                tx.commit(Durability.NORMAL);
            }
            assertTrue(disk.syncs() > syncs, "the unrecorded commit synced its pages");
            assertEquals(store.revision(), store.stats().durableRevision());
            for (int c = 0; c < 5; c++) {
                change(store, model, random);
            }
            store.sync();
            BootId.reboot();
            try (Store recovered = Store.over(PowerCutPageStore.of(disk.cut(random), 4096), LOGGED, false,
                    log.cut(random))) {
                assertEquals(store.revision(), recovered.revision());
                assertSame(recovered, model, "after the barrier");
            }
        }
    }

    @Test
    void aLogOfAnotherStoreIsRefused() {
        PowerCutRedoStorage log = new PowerCutRedoStorage();
        PowerCutPageStore other = new PowerCutPageStore(4096);
        Store.over(other, LOGGED, true).close();
        try (Store store = Store.over(new PowerCutPageStore(4096), LOGGED, true, log)) {
            change(store, new HashMap<>(), new Random(1));
            store.sync();
            PowerCutRedoStorage left = log.cut(new Random(2));
            CorruptionException e = assertThrows(CorruptionException.class,
                    () -> Store.over(PowerCutPageStore.of(other.cut(new Random(3)), 4096), LOGGED, false, left).close());
            assertTrue(e.getMessage().contains("belongs to another store"), e.getMessage());
            assertEquals(1, left.segments().length, "nothing was deleted");
            // Nor is a store created beside a log: its own file may only be missing, the log its last copy.
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> Store.over(new PowerCutPageStore(4096), LOGGED, true, left).close());
            assertTrue(refused.getMessage().contains("redo log segments"), refused.getMessage());
            assertEquals(1, left.segments().length);
        }
    }

    @Test
    void aMissingStoreFileBesideItsLogIsNotCreatedAnew() throws java.io.IOException {
        Path file = dir.resolve("gone.mvbt");
        try (Store store = Store.open(file, StoreOptions.defaults().redoLog(true))) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(tx.createTree("t"), key(1), key(2));
                tx.commit(Durability.SYNC);
            }
            // A copy of the log as the writer left it, before its close deletes it.
            try (var files = java.nio.file.Files.list(dir)) {
                for (Path p : files.filter(p -> p.getFileName().toString().contains(".redo-")).toList()) {
                    java.nio.file.Files.copy(p, dir.resolve(p.getFileName() + ".kept"));
                }
            }
        }
        java.nio.file.Files.delete(file);
        try (var files = java.nio.file.Files.list(dir)) {
            for (Path p : files.filter(p -> p.getFileName().toString().endsWith(".kept")).toList()) {
                String name = p.getFileName().toString();
                java.nio.file.Files.move(p, dir.resolve(name.substring(0, name.length() - ".kept".length())));
            }
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Store.open(file).close());
        assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
        assertFalse(java.nio.file.Files.exists(file));
        assertTrue(RedoFiles.present(file));
    }

    /** Opened through a symbolic link, the store keeps its log beside the file the link leads to. */
    @Test
    void theLogLiesBesideTheFileALinkLeadsTo() throws java.io.IOException {
        Path real = java.nio.file.Files.createDirectories(dir.resolve("real")).resolve("s.mvbt");
        Path link = dir.resolve("link.mvbt");
        Store.open(real).close();
        java.nio.file.Files.createSymbolicLink(link, real);
        try (Store store = Store.open(link, StoreOptions.defaults().redoLog(true))) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(tx.createTree("t"), key(1), key(2));
                tx.commit(Durability.SYNC);
            }
            assertTrue(RedoFiles.present(real));
            assertTrue(RedoFiles.present(link));
            try (var files = java.nio.file.Files.list(dir)) {
                assertEquals(0, files.filter(p -> p.getFileName().toString().contains(".redo-")).count());
            }
        }
    }

    /** A file older than the log's first record (restored from a backup, say): the commits between are missing. */
    @Test
    void aLogThatDoesNotContinueTheFileIsRefused() {
        RedoLog.segmentBytes = 1024;
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        PowerCutRedoStorage log = new PowerCutRedoStorage();
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        Random random = new Random(3);
        try (Store store = Store.over(disk, LOGGED, true, log)) {
            change(store, model, random);
            byte[] old = disk.cut(new Random(4));
            for (int c = 0; c < 30; c++) {
                change(store, model, random);
            }
            // A checkpoint deletes the segments it covers.
            store.compact();
            change(store, model, random);
            store.sync();
            assertTrue(log.segments()[0] > 2, "the first segments went");
            BootId.reboot();
            CorruptionException e = assertThrows(CorruptionException.class,
                    () -> Store.over(PowerCutPageStore.of(old, 4096), LOGGED, false, log.cut(random)).close());
            assertTrue(e.getMessage().contains("are missing"), e.getMessage());
        }
    }

    /**
     * Replay beside a checkpointer that runs every millisecond over a store whose file frees most of
     * itself during the replay (a dropped tree's pages reclaimed by the replayed commits): no shrink
     * or compaction may publish a revision in between, which would take the number of a record
     * still to replay and have it skipped.
     */
    @Test
    void nothingButTheRecordsIsPublishedWhileTheyAreReplayed() {
        for (int trial = 0; trial < 5; trial++) {
            PowerCutPageStore disk = new PowerCutPageStore(4096);
            PowerCutRedoStorage log = new PowerCutRedoStorage();
            TreeMap<byte[], byte[]> model = ModelHarness.newMap();
            long revision;
            try (Store store = Store.over(disk, LOGGED, true, log)) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree big = tx.createTree("big");
                    for (int i = 0; i < 6000; i++) {
                        tx.put(big, key(i), new byte[600]);
                    }
                    tx.commit();
                }
                store.compact();
                try (WriteTxn tx = store.beginWrite()) {
                    tx.dropTree(store.tree("big"));
                    tx.createTree("a");
                    tx.commit();
                }
                for (int c = 0; c < 400; c++) {
                    try (WriteTxn tx = store.beginWrite()) {
                        byte[] k = key(c);
                        byte[] v = ("v" + c).getBytes();
                        tx.put(store.tree("a"), k, v);
                        model.put(k, v);
                        tx.commit();
                    }
                }
                store.sync();
                revision = store.revision();
                BootId.reboot();
                StoreOptions busy = LOGGED.checkpointInterval(Duration.ofMillis(1));
                PowerCutPageStore reopened = PowerCutPageStore.of(disk.cut(new Random(trial)), 4096);
                long pagesBefore = reopened.pageCount();
                try (Store recovered = Store.over(reopened, busy, false, log.cut(new Random(trial)))) {
                    long opened = recovered.revision();
                    try (WriteTxn waitForShrink = recovered.beginWrite()) {
                        // A shrink holds the writer until it has truncated the file.
                    }
                    // Once replay is over, the busy checkpointer may shrink the freed tail: one revision more.
                    assertTrue(opened == revision || opened == revision + 1 && reopened.pageCount() < pagesBefore,
                            "trial " + trial + ": opened at " + opened + ", replayed through " + revision);
                    try (Snapshot s = recovered.beginRead()) {
                        assertFalse(s.hasTree(recovered.tree("big")));
                        assertNull(CrashWorkload.difference(s, recovered.tree("a"), model), "trial " + trial);
                    }
                    recovered.check().throwIfDamaged();
                }
            }
        }
    }

    /** One commit of random changes of every kind, to the store and the model. */
    private static void change(Store store, Map<String, TreeMap<byte[], byte[]>> model, Random random) {
        int maxKey = store.maxKeySize();
        try (WriteTxn tx = store.beginWrite()) {
            int ops = 1 + random.nextInt(random.nextInt(8) == 0 ? 200 : 8);
            for (int o = 0; o < ops; o++) {
                String name = random.nextBoolean() ? "a" : "b";
                int kind = random.nextInt(20);
                if (kind == 0) {
                    if (tx.dropTree(store.tree(name))) {
                        model.remove(name);
                    }
                    continue;
                }
                Tree t = tx.createTreeIfAbsent(name);
                TreeMap<byte[], byte[]> m = model.computeIfAbsent(name, n -> ModelHarness.newMap());
                byte[] k = random.nextInt(20) == 0 ? randomBytes(random, 1 + random.nextInt(maxKey))
                        : key(random.nextInt(500));
                if (kind < 12) {
                    byte[] v = randomBytes(random, random.nextInt(10) == 0 ? 1000 + random.nextInt(9000)
                            : random.nextInt(200));
                    tx.put(t, k, v);
                    m.put(k, v);
                } else if (kind < 17) {
                    tx.delete(t, k);
                    m.remove(k);
                } else if (kind < 19) {
                    byte[] to = key(random.nextInt(500));
                    if (java.util.Arrays.compareUnsigned(k, to) <= 0) {
                        tx.deleteRange(t, k, to);
                        m.subMap(k, true, to, false).clear();
                    }
                } else {
                    // A bulk load appends keys after the last one.
                    byte[] last = m.isEmpty() ? new byte[0] : m.lastKey();
                    try (BulkLoad load = tx.bulkLoad(t, 0.5 + random.nextDouble() / 2)) {
                        for (int i = 0; i < random.nextInt(100); i++) {
                            byte[] lk = new byte[last.length + 1 + i / 200];
                            System.arraycopy(last, 0, lk, 0, last.length);
                            lk[last.length] = (byte) (1 + i);
                            if (lk.length > maxKey) {
                                break;
                            }
                            byte[] v = randomBytes(random, random.nextInt(300));
                            load.add(lk, v);
                            m.put(lk, v);
                        }
                    }
                }
            }
            tx.commit(random.nextInt(4) == 0 ? Durability.SYNC : Durability.NORMAL);
        }
    }

    private static void assertSame(Store store, Map<String, TreeMap<byte[], byte[]>> model, String where) {
        try (Snapshot s = store.beginRead()) {
            for (String name : new String[] {"a", "b", "big"}) {
                Tree tree = store.tree(name);
                TreeMap<byte[], byte[]> m = model.get(name);
                if (m == null) {
                    assertFalse(s.hasTree(tree), where + ": tree " + name + " exists");
                    continue;
                }
                assertNull(CrashWorkload.difference(s, tree, m), where + ": tree " + name);
            }
        }
    }

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes();
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
