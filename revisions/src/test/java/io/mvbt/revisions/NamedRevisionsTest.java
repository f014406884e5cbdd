// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.mvbt.NamedRevisionExistsException;
import io.mvbt.NamedRevisionNotFoundException;

/**
 * Named revisions: kept under a name until released, across commits that rewrite and free every
 * page they reach, close and reopen; opened as ordinary snapshots; their pages given back on
 * release. Every store runs in the checked mode, whose commit check fails a commit that writes
 * over a page still listed in use, and whose integrity check fails a named revision's page found
 * reusable.
 */
class NamedRevisionsTest {
    private static final int KEYS = 2_000;

    @TempDir
    Path dir;

    private static StoreOptions options(boolean redo) {
        return StoreOptions.defaults().checked(true).durability(Durability.NORMAL).redoLog(redo)
                .checkpointInterval(Duration.ofMillis(50));
    }

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int round) {
        // Every few keys a value in overflow pages, so that named revisions pin runs too.
        int length = i % 97 == 0 ? 6000 : 40;
        byte[] v = new byte[length];
        java.util.Arrays.fill(v, (byte) (i * 31 + round));
        return v;
    }

    private static void writeAll(Store store, int round, TreeMap<String, byte[]> model) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.hasTree(store.tree("t")) ? store.tree("t") : tx.createTree("t");
            for (int i = 0; i < KEYS; i++) {
                tx.put(t, key(i), value(i, round));
                if (model != null) {
                    model.put(new String(key(i), StandardCharsets.UTF_8), value(i, round));
                }
            }
            tx.commit();
        }
    }

    private static void assertSnapshotEquals(Store store, Snapshot s, Map<String, byte[]> model) {
        Tree t = store.tree("t");
        TreeMap<String, byte[]> seen = new TreeMap<>();
        try (Cursor c = s.cursor(t)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                seen.put(new String(c.keyBytes(), StandardCharsets.UTF_8), c.valueBytes());
            }
        }
        assertEquals(model.keySet(), seen.keySet(), "keys of revision " + s.revision());
        for (Map.Entry<String, byte[]> e : model.entrySet()) {
            assertTrue(java.util.Arrays.equals(e.getValue(), seen.get(e.getKey())), "value of " + e.getKey()
                    + " in revision " + s.revision());
        }
    }

    private static void assertChecked(Store store) {
        CheckReport report = store.check();
        assertTrue(report.ok(), report.problems().toString());
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void aRetainedRevisionOutlivesRewritesAndReopens(boolean redo) {
        Path file = dir.resolve("s.mvbt");
        TreeMap<String, byte[]> kept = new TreeMap<>();
        long named;
        try (Store store = Store.open(file, options(redo))) {
            writeAll(store, 0, kept);
            long newest = store.revision();
            named = store.retain("v0");
            assertEquals(newest, named);
            // Rewrite every page v0 reaches, many times: each round frees what the last one wrote.
            for (int round = 1; round <= 4; round++) {
                writeAll(store, round, null);
            }
            try (Snapshot s = store.beginRead("v0")) {
                assertEquals(named, s.revision());
                assertSnapshotEquals(store, s, kept);
            }
            assertChecked(store);
        }
        try (Store store = Store.open(file, options(redo))) {
            // After the reopen the free map calls v0's pages free: they must not be handed out.
            for (int round = 5; round <= 9; round++) {
                writeAll(store, round, null);
            }
            try (Snapshot s = store.beginRead("v0")) {
                assertEquals(named, s.revision());
                assertSnapshotEquals(store, s, kept);
            }
            try (Snapshot s = store.beginRead(named)) {
                assertSnapshotEquals(store, s, kept);
            }
            assertChecked(store);
            List<NamedRevision> list = store.namedRevisions();
            assertEquals(1, list.size());
            assertEquals("v0", list.get(0).name());
            assertEquals(named, list.get(0).revision());
            assertTrue(list.get(0).pinnedPages() > KEYS / 100, "pinned " + list.get(0).pinnedPages());
        }
    }

    /** A sole writer that keeps its pages in a shadow until their checkpoint writes them into the file. */
    @org.junit.jupiter.api.Test
    void aShadowedWriterKeepsNamedRevisionsAcrossReopens() throws Exception {
        Path file = dir.resolve("shadowed.mvbt");
        StoreOptions shadowed = options(false).shadowDirectory(java.nio.file.Files.createDirectories(dir.resolve("shm")));
        TreeMap<String, byte[]> kept = new TreeMap<>();
        TreeMap<String, byte[]> inTxn = new TreeMap<>();
        try (Store store = Store.open(file, shadowed)) {
            writeAll(store, 0, kept);
            store.retain("by-store");
            writeAll(store, 1, inTxn);
            store.update(tx -> tx.retain("by-txn"));
            for (int round = 2; round <= 5; round++) {
                writeAll(store, round, null);
            }
        }
        try (Store store = Store.open(file, shadowed)) {
            writeAll(store, 6, null);
            try (Snapshot s = store.beginRead("by-store")) {
                assertSnapshotEquals(store, s, kept);
            }
            try (Snapshot s = store.beginRead("by-txn")) {
                assertSnapshotEquals(store, s, inTxn);
            }
            assertChecked(store);
        }
    }

    /** A snapshot of a named revision keeps no page from reuse, however far behind: no slow-reader policy expires it. */
    @org.junit.jupiter.api.Test
    void slowReaderPoliciesLeaveSnapshotsOfNamedRevisionsAlone() {
        StoreOptions strict = options(false).slowReaders(SlowReaderPolicy.expire(2, Duration.ZERO));
        TreeMap<String, byte[]> kept = new TreeMap<>();
        try (Store store = Store.open(dir.resolve("slow.mvbt"), strict)) {
            writeAll(store, 0, kept);
            store.retain("old");
            for (int round = 1; round <= 3; round++) {
                writeAll(store, round, null);
            }
            try (Snapshot named = store.beginRead("old"); Snapshot plain = store.beginRead()) {
                for (int round = 4; round <= 7; round++) {
                    writeAll(store, round, null);
                }
                assertSnapshotEquals(store, named, kept);
                assertThrows(io.mvbt.SnapshotExpiredException.class, () -> plain.count(store.tree("t")));
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aStoreInMemoryKeepsNamedRevisions() {
        TreeMap<String, byte[]> kept = new TreeMap<>();
        try (Store store = Store.inMemory(StoreOptions.defaults().checked(true))) {
            writeAll(store, 0, kept);
            long named = store.retain("m");
            for (int round = 1; round <= 3; round++) {
                writeAll(store, round, null);
            }
            try (Snapshot s = store.beginRead(named)) {
                assertSnapshotEquals(store, s, kept);
            }
            assertChecked(store);
            store.release("m");
            writeAll(store, 4, null);
            assertChecked(store);
            assertEquals(0, store.space().pending.pages());
        }
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void aTransactionNamesTheRevisionItCommits(boolean redo) {
        Path file = dir.resolve("t.mvbt");
        TreeMap<String, byte[]> kept = new TreeMap<>();
        long named;
        try (Store store = Store.open(file, options(redo))) {
            writeAll(store, 0, null);
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = store.tree("t");
                for (int i = 0; i < KEYS; i += 2) {
                    tx.put(t, key(i), value(i, 7));
                }
                tx.retain("half");
                named = tx.revision();
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                Tree t = store.tree("t");
                try (Cursor c = s.cursor(t)) {
                    for (boolean ok = c.first(); ok; ok = c.next()) {
                        kept.put(new String(c.keyBytes(), StandardCharsets.UTF_8), c.valueBytes());
                    }
                }
            }
            // The name is readable while its revision is the newest, before the next commit resolves it.
            try (Snapshot s = store.beginRead("half")) {
                assertEquals(named, s.revision());
                assertSnapshotEquals(store, s, kept);
            }
            for (int round = 1; round <= 3; round++) {
                writeAll(store, round, null);
            }
            try (Snapshot s = store.beginRead("half")) {
                assertSnapshotEquals(store, s, kept);
            }
            assertChecked(store);
        }
        try (Store store = Store.open(file, options(redo))) {
            writeAll(store, 4, null);
            try (Snapshot s = store.beginRead(named)) {
                assertEquals(named, s.revision());
                assertSnapshotEquals(store, s, kept);
            }
            assertChecked(store);
        }
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void releaseGivesThePagesBackAfterAReopen(boolean redo) {
        Path file = dir.resolve("r.mvbt");
        try (Store store = Store.open(file, options(redo))) {
            writeAll(store, 0, null);
            store.retain("a");
            writeAll(store, 1, null);
            store.retain("b");
            writeAll(store, 2, null);
        }
        try (Store store = Store.open(file, options(redo))) {
            List<NamedRevision> before = store.namedRevisions();
            assertEquals(List.of("a", "b"), before.stream().map(NamedRevision::name).toList());
            long pinnedByA = before.get(0).pinnedPages();
            assertTrue(pinnedByA > 0 && before.get(1).pinnedPages() > 0, before.toString());
            // After a clean open only the named revisions make pages wait.
            long waiting = store.space().pending.pages();
            store.release("a");
            store.sync();
            List<NamedRevision> after = store.namedRevisions();
            assertEquals(List.of("b"), after.stream().map(NamedRevision::name).toList());
            long left = store.space().pending.pages();
            // What a alone held is free again; the release's own commit may leave a few of b's pages waiting.
            assertTrue(left <= waiting - pinnedByA + 8, "waiting " + waiting + ", a alone held " + pinnedByA
                    + ", still waiting " + left);
            assertChecked(store);
            store.release("b");
            store.sync();
            assertEquals(List.of(), store.namedRevisions());
            assertEquals(0, store.space().pending.pages(), "pages still waiting after both releases");
            writeAll(store, 3, null);
            assertChecked(store);
        }
        try (Store store = Store.open(file, options(redo))) {
            assertEquals(List.of(), store.namedRevisions());
            assertChecked(store);
        }
    }

    /**
     * Recovery may open at the durable revision, whose catalog still names a revision released
     * after it: until the release is durable, that revision's pages stay where they are. (With a
     * redo log a release is made durable by its pages at once: no record says it.)
     */
    @org.junit.jupiter.api.Test
    void aReleaseFreesNothingUntilItIsDurable() {
        StoreOptions slow = options(false).checkpointInterval(Duration.ofHours(1));
        try (Store store = Store.open(dir.resolve("u.mvbt"), slow)) {
            writeAll(store, 0, null);
            store.retain("a");
            writeAll(store, 1, null);
            store.sync();
            // The pages only a reaches: freed since, so not in use.
            PageSet freed = new PageSet();
            try (Snapshot a = store.beginRead("a")) {
                Revision r = a.rev();
                RevisionWalker.walk(r.reader(store.access()), r.catalog, r.fresh,
                        RevisionWalker.freeMapOf(r, store.pageSize()), -1, (pageNo, revision, type, address, pages) -> {
                            for (long p = pageNo; p < pageNo + pages; p++) {
                                if (!store.space().inUse.get(p)) {
                                    freed.set(p);
                                }
                            }
                        });
            }
            long count = freed.cardinality();
            assertTrue(count > KEYS / 100, "a alone reaches " + count + " pages");
            store.update(tx -> tx.release("a"));
            writeAll(store, 2, null);
            assertEquals(List.of(), store.namedRevisions());
            for (long p = freed.nextSetBit(0); p >= 0; p = freed.nextSetBit(p + 1)) {
                assertTrue(!store.space().reusable.get(p) && !store.space().inUse.get(p), "page " + p
                        + " of released revision a was let go before the release was durable");
            }
            store.sync();
            store.namedRevisions();
            long back = 0;
            for (long p = freed.nextSetBit(0); p >= 0; p = freed.nextSetBit(p + 1)) {
                if (store.space().reusable.get(p) || store.space().inUse.get(p)) {
                    back++;
                }
            }
            assertEquals(count, back, "pages of a given back once its release is durable");
            assertChecked(store);
        }
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void detachedSubtreesFreedLaterStayReadable(boolean redo) {
        Path file = dir.resolve("d.mvbt");
        TreeMap<String, byte[]> kept = new TreeMap<>();
        try (Store store = Store.open(file, options(redo))) {
            writeAll(store, 0, kept);
            store.retain("before-delete");
            store.update(tx -> tx.deleteRange(store.tree("t"), key(10), key(KEYS - 10)));
            // Commits that free the detached subtrees a few pages at a time.
            for (int i = 0; i < 200; i++) {
                int k = i;
                store.update(tx -> tx.put(store.tree("t"), key(k % 10), value(k, 9)));
            }
            store.update(tx -> tx.dropTree(store.tree("t")));
            for (int i = 0; i < 50; i++) {
                store.update(tx -> tx.put(tx.hasTree(store.tree("u")) ? store.tree("u") : tx.createTree("u"),
                        key(1), value(1, 1)));
            }
            assertChecked(store);
        }
        try (Store store = Store.open(file, options(redo))) {
            writeAll(store, 5, null);
            try (Snapshot s = store.beginRead("before-delete")) {
                assertSnapshotEquals(store, s, kept);
            }
            assertChecked(store);
        }
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void compactionAtCloseLeavesNamedRevisionsAlone(boolean redo) {
        long saved = Compaction.minimumGainBytes;
        Compaction.minimumGainBytes = 0;
        try {
            Path file = dir.resolve("c.mvbt");
            TreeMap<String, byte[]> kept = new TreeMap<>();
            try (Store store = Store.open(file, options(redo).compactAtClose(true))) {
                writeAll(store, 0, kept);
                store.retain("keep");
                store.update(tx -> tx.deleteRange(store.tree("t"), key(0), key(KEYS)));
                // The name reaches every page the newest lost, and the newest holds next to nothing.
                assertEquals(0, store.compact(), "compact() gave back pages the name keeps");
            }
            try (Store store = Store.open(file, options(redo))) {
                try (Snapshot s = store.beginRead("keep")) {
                    assertSnapshotEquals(store, s, kept);
                }
                assertChecked(store);
            }
        } finally {
            Compaction.minimumGainBytes = saved;
        }
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void aReadOnlyStoreOpensNamedRevisions(boolean redo) {
        Path file = dir.resolve("ro.mvbt");
        TreeMap<String, byte[]> kept = new TreeMap<>();
        try (Store writer = Store.open(file, options(redo))) {
            writeAll(writer, 0, kept);
            long named = writer.retain("shared");
            writeAll(writer, 1, null);
            try (Store reader = Store.openReadOnly(file)) {
                try (Snapshot s = reader.beginRead("shared")) {
                    assertEquals(named, s.revision());
                    assertSnapshotEquals(reader, s, kept);
                }
                List<NamedRevision> list = reader.namedRevisions();
                assertEquals(1, list.size());
                assertEquals(-1, list.get(0).pinnedPages());
                assertThrows(NamedRevisionNotFoundException.class, () -> reader.beginRead("other"));
            }
        }
    }

    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void misuseIsRefusedClearly(boolean redo) {
        try (Store store = Store.open(dir.resolve("m.mvbt"), options(redo))) {
            writeAll(store, 0, null);
            store.retain("x");
            NamedRevisionExistsException exists = assertThrows(NamedRevisionExistsException.class,
                    () -> store.retain("x"));
            assertTrue(exists.getMessage().contains("'x'"), exists.getMessage());
            assertThrows(NamedRevisionExistsException.class, () -> store.update(tx -> tx.retain("x")));
            NamedRevisionNotFoundException missing = assertThrows(NamedRevisionNotFoundException.class,
                    () -> store.release("y"));
            assertTrue(missing.getMessage().contains("'y'"), missing.getMessage());
            assertThrows(NamedRevisionNotFoundException.class, () -> store.beginRead("y"));
            assertThrows(NamedRevisionNotFoundException.class, () -> store.beginRead(0L));
            assertThrows(IllegalArgumentException.class, () -> store.retain(""));
            assertThrows(IllegalArgumentException.class, () -> store.retain("n".repeat(NamedRevisions.MAX_NAME_BYTES + 1)));
            store.retain("n".repeat(NamedRevisions.MAX_NAME_BYTES));
            // A failed retain changed nothing; the names stand.
            assertEquals(2, store.namedRevisions().size());
            // Internal trees stay out of the user's listing.
            try (Snapshot s = store.beginRead()) {
                assertEquals(List.of("t"), s.treeNames());
            }
            store.release("x");
            assertThrows(NamedRevisionNotFoundException.class, () -> store.beginRead("x"));
            assertChecked(store);
        }
    }

    /** One step of a random history: writes (a key below 0 deletes), names, releases, reopens, reads. */
    private record Op(String kind, int[] keys, String name) {
        @Override
        public String toString() {
            return kind + (keys.length > 0 ? " " + keys.length + " keys" : "") + (name != null ? " " + name : "");
        }
    }

    private static List<Op> history(long seed) {
        Random random = new Random(seed);
        List<Op> ops = new java.util.ArrayList<>();
        for (int step = 0; step < 300; step++) {
            int op = random.nextInt(100);
            String name = "n" + random.nextInt(8);
            if (op < 70) {
                int[] keys = new int[1 + random.nextInt(40)];
                for (int i = 0; i < keys.length; i++) {
                    int k = random.nextInt(600);
                    keys[i] = random.nextInt(4) == 0 ? -1 - k : k;
                }
                ops.add(new Op("write", keys, random.nextInt(10) == 0 ? name : null));
            } else if (op < 80) {
                ops.add(new Op("retain", new int[0], name));
            } else if (op < 88) {
                ops.add(new Op("release", new int[0], name));
            } else if (op < 94) {
                ops.add(new Op("reopen", new int[0], null));
            } else {
                ops.add(new Op("read", new int[0], null));
            }
        }
        return ops;
    }

    /**
     * Random histories against a model: each named revision reads back as a copy of the model taken
     * when it was named. A failure prints its seed ({@code -Dmvbt.named.seed=N} replays it) and the
     * history shrunk to the fewest steps that still fail.
     */
    @ParameterizedTest(name = "redoLog={0}")
    @ValueSource(booleans = {false, true})
    void randomHistoriesKeepEveryNamedRevision(boolean redo) {
        long seed = Long.getLong("mvbt.named.seed", new Random().nextLong());
        List<Op> ops = history(seed);
        try {
            run(ops, redo);
        } catch (AssertionError | RuntimeException e) {
            List<Op> shrunk = io.mvbt.testkit.Shrink.failing(ops, candidate -> {
                try {
                    run(candidate, redo);
                    return false;
                } catch (AssertionError | RuntimeException again) {
                    return true;
                }
            });
            throw new AssertionError("seed " + seed + " (-Dmvbt.named.seed=" + seed + ", redoLog=" + redo
                    + ") fails; shrunk to " + shrunk, e);
        }
    }

    private int runs;

    private void run(List<Op> ops, boolean redo) {
        Path file = dir.resolve("model-" + redo + "-" + runs++ + ".mvbt");
        TreeMap<String, byte[]> model = new TreeMap<>();
        Map<String, TreeMap<String, byte[]>> named = new TreeMap<>();
        Store store = Store.open(file, options(redo));
        try {
            store.update(tx -> tx.createTree("t"));
            int step = 0;
            for (Op op : ops) {
                step++;
                switch (op.kind()) {
                    case "write" -> {
                        try (WriteTxn tx = store.beginWrite()) {
                            Tree t = store.tree("t");
                            for (int k : op.keys()) {
                                int key = k < 0 ? -1 - k : k;
                                String text = new String(key(key), StandardCharsets.UTF_8);
                                if (k < 0) {
                                    tx.delete(t, key(key));
                                    model.remove(text);
                                } else {
                                    byte[] v = value(key, step);
                                    tx.put(t, key(key), v);
                                    model.put(text, v);
                                }
                            }
                            if (op.name() != null && !named.containsKey(op.name())) {
                                tx.retain(op.name());
                                named.put(op.name(), new TreeMap<>(model));
                            }
                            tx.commit();
                        }
                    }
                    case "retain" -> {
                        if (!named.containsKey(op.name())) {
                            store.retain(op.name());
                            named.put(op.name(), new TreeMap<>(model));
                        }
                    }
                    case "release" -> {
                        if (named.remove(op.name()) != null) {
                            store.release(op.name());
                        }
                    }
                    case "reopen" -> {
                        store.close();
                        store = Store.open(file, options(redo));
                    }
                    default -> {
                        for (Map.Entry<String, TreeMap<String, byte[]>> e : named.entrySet()) {
                            try (Snapshot s = store.beginRead(e.getKey())) {
                                assertSnapshotEquals(store, s, e.getValue());
                            }
                        }
                    }
                }
            }
            for (Map.Entry<String, TreeMap<String, byte[]>> e : named.entrySet()) {
                try (Snapshot s = store.beginRead(e.getKey())) {
                    assertSnapshotEquals(store, s, e.getValue());
                }
            }
            assertEquals(named.keySet(), new java.util.TreeSet<>(store.namedRevisions().stream()
                    .map(NamedRevision::name).toList()));
            assertChecked(store);
        } finally {
            store.close();
        }
    }
}
