// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import io.mvbt.TreeNotFoundException;

/** What {@link Snapshot#diff} reports, and that it reads only the pages two revisions do not share. */
class DiffTest {
    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    private static byte[] value(long i, int length) {
        byte[] v = new byte[length];
        new Random(i).nextBytes(v);
        return v;
    }

    /** Loads keys 0, 2, 4, ... (so that odd keys can be added between them) into tree "t". */
    private static Tree load(Store store, int entries, int valueLength) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree("t");
            try (BulkLoad load = tx.bulkLoad(t)) {
                for (long i = 0; i < entries; i++) {
                    load.add(key(2 * i), value(i, valueLength));
                }
            }
            tx.commit();
            return t;
        }
    }

    @Test
    void reportsAddedRemovedAndChangedKeysInKeyOrder() {
        try (Store store = Store.inMemory()) {
            Tree t = load(store, 1000, 16);
            try (Snapshot before = store.beginRead()) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(t, key(501), value(7, 3));
                    tx.delete(t, key(100));
                    tx.put(t, key(1200), value(8, 5));
                    // The same bytes again: not a change.
                    tx.put(t, key(40), value(20, 16));
                    tx.commit();
                }
                try (Snapshot after = store.beginRead()) {
                    List<Change> changes = before.changes(after, t);
                    assertEquals(List.of(new Change("t", key(100), value(50, 16), null),
                            new Change("t", key(501), null, value(7, 3)),
                            new Change("t", key(1200), value(600, 16), value(8, 5))), changes);
                    assertEquals(List.of(Change.Kind.REMOVED, Change.Kind.ADDED, Change.Kind.CHANGED),
                            changes.stream().map(Change::kind).toList());
                    // The other way round: the changes that undo them.
                    assertEquals(List.of(new Change("t", key(100), null, value(50, 16)),
                            new Change("t", key(501), value(7, 3), null),
                            new Change("t", key(1200), value(8, 5), value(600, 16))), after.changes(before, t));
                    assertEquals(List.of(), after.changes(after, t));
                }
            }
        }
    }

    @Test
    void aFewChangesInALargeTreeReadAFewPathsOfPages() {
        int entries = 200_000;
        try (Store store = Store.inMemory()) {
            Tree t = load(store, entries, 24);
            Random r = new Random(49);
            try (Snapshot before = store.beginRead()) {
                int depth = before.treeStats(t).depth();
                int changed = 12;
                TreeSet<Long> touched = new TreeSet<>();
                try (WriteTxn tx = store.beginWrite()) {
                    while (touched.size() < changed) {
                        long i = r.nextInt(entries);
                        if (!touched.add(i)) {
                            continue;
                        }
                        switch (touched.size() % 3) {
                            case 0 -> tx.put(t, key(2 * i + 1), value(i, 10));
                            case 1 -> tx.delete(t, key(2 * i));
                            default -> tx.put(t, key(2 * i), value(i + 1, 40));
                        }
                    }
                    tx.commit();
                }
                try (Snapshot after = store.beginRead()) {
                    List<Change> changes = new ArrayList<>();
                    DiffStats stats = before.diff(after, t, (name, k, o, n) -> changes.add(
                            new Change(name, copy(k), copy(o), copy(n))));
                    assertEquals(changed, changes.size());
                    assertEquals(changed, stats.changes());
                    // Both paths of every changed key, twice over for neighbours that line up differently;
                    // a diff that read a shared subtree would read thousands of leaves.
                    long bound = (long) changed * depth * 4 + 8;
                    assertTrue(stats.pagesRead() <= bound, "read " + stats.pagesRead() + " pages for " + changed
                            + " changes at depth " + depth + ", bound " + bound + "; " + stats);
                    assertTrue(stats.subtreesSkipped() > 0, stats.toString());
                    System.out.println("diff of " + changed + " changes in " + entries + " entries (depth " + depth
                            + "): " + stats);
                }
            }
        }
    }

    @Test
    void sharedRevisionsReadNoTreePage() {
        try (Store store = Store.inMemory()) {
            Tree t = load(store, 50_000, 8);
            try (WriteTxn tx = store.beginWrite()) {
                tx.createTree("other");
                tx.commit();
            }
            try (Snapshot a = store.beginRead(); Snapshot b = store.beginRead()) {
                DiffStats stats = a.diff(b, t, (name, k, o, n) -> {
                    throw new AssertionError("no change expected");
                });
                assertEquals(new DiffStats(0, 0, 1, 0), stats);
            }
        }
    }

    @Test
    void overflowValuesAreComparedByPageThenByBytes() {
        try (Store store = Store.inMemory()) {
            Tree t = load(store, 200, 9000);
            try (Snapshot before = store.beginRead()) {
                try (WriteTxn tx = store.beginWrite()) {
                    // Rewritten with the same bytes: new overflow pages, no change.
                    tx.put(t, key(20), value(10, 9000));
                    // One byte changed at the end of a value of several pages.
                    byte[] v = value(11, 9000);
                    v[8999] ^= 1;
                    tx.put(t, key(22), v);
                    tx.commit();
                }
                try (Snapshot after = store.beginRead()) {
                    List<Change> seen = new ArrayList<>();
                    DiffStats stats = before.diff(after, t, (name, k, o, n) -> seen.add(new Change(name, copy(k),
                            copy(o), copy(n))));
                    assertEquals(1, seen.size());
                    assertArrayEquals(key(22), seen.get(0).key());
                    assertArrayEquals(value(11, 9000), seen.get(0).oldValue());
                    assertEquals(2, stats.overflowValuesCompared());
                }
            }
        }
    }

    @Test
    void rangeDeletesComeOutAsTheDeletesOfTheirKeys() {
        try (Store store = Store.inMemory()) {
            Tree t = load(store, 20_000, 8);
            try (Snapshot before = store.beginRead()) {
                try (WriteTxn tx = store.beginWrite()) {
                    assertEquals(5000, tx.deleteRange(t, key(10_000), key(20_000)));
                    tx.commit();
                }
                try (Snapshot after = store.beginRead()) {
                    List<Change> changes = before.changes(after, t);
                    assertEquals(5000, changes.size());
                    for (int i = 0; i < changes.size(); i++) {
                        assertArrayEquals(key(10_000 + 2 * i), changes.get(i).key());
                        assertNull(changes.get(i).newValue());
                        assertArrayEquals(value(5000 + i, 8), changes.get(i).oldValue());
                    }
                }
            }
        }
    }

    @Test
    void createdAndDroppedTreesAreEventsInNameOrder() {
        try (Store store = Store.inMemory()) {
            Tree t = load(store, 10, 8);
            try (Snapshot before = store.beginRead()) {
                Tree u;
                try (WriteTxn tx = store.beginWrite()) {
                    tx.dropTree(t);
                    u = tx.createTree("u");
                    tx.put(u, key(1), value(1, 4));
                    tx.createTree("a-empty");
                    tx.commit();
                }
                try (Snapshot after = store.beginRead()) {
                    List<String> events = new ArrayList<>();
                    DiffStats stats = before.diff(after, new DiffVisitor() {
                        @Override
                        public void treeCreated(String tree) {
                            events.add("created " + tree);
                        }

                        @Override
                        public void treeDropped(String tree, long entries) {
                            events.add("dropped " + tree + " of " + entries);
                        }

                        @Override
                        public void changed(String tree, DirectBuffer k, DirectBuffer o, DirectBuffer n) {
                            events.add(tree + " " + (o == null ? "added" : n == null ? "removed" : "changed") + " "
                                    + k.getLong(0, java.nio.ByteOrder.BIG_ENDIAN) + " " + n.capacity());
                        }
                    });
                    assertEquals(List.of("created a-empty", "dropped t of 10", "created u", "u added 1 4"), events);
                    assertEquals(4, stats.changes());
                    assertEquals(List.of(new Change("u", key(1), null, value(1, 4))), before.changes(after, u));
                    // Dropped, for one tree: the event, no key.
                    List<String> dropped = new ArrayList<>();
                    before.diff(after, t, new DiffVisitor() {
                        @Override
                        public void treeDropped(String tree, long entries) {
                            dropped.add(tree);
                        }

                        @Override
                        public void changed(String tree, DirectBuffer k, DirectBuffer o, DirectBuffer n) {
                            throw new AssertionError("a dropped tree's keys are not reported");
                        }
                    });
                    assertEquals(List.of("t"), dropped);
                    Tree none = store.tree("none");
                    assertThrows(TreeNotFoundException.class, () -> before.diff(after, none, (a, b, c, d) -> { }));
                }
            }
        }
    }

    /** The README's diff example, as it stands there: what it prints. */
    @Test
    void theReadmeExamplePrintsWhatItSays() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
        try (Store store = Store.inMemory()) {
            TypedTree<String, String> users = TypedTree.of(store.tree("users"), Codecs.STRING, Codecs.STRING);
            store.update(tx -> {
                tx.createTreeIfAbsent("users");
                users.put(tx, "alice", "owner");
            });
            try (Snapshot before = store.beginRead()) {
                store.write(tx -> users.put(tx, "carol", "staff"));
                try (Snapshot after = store.beginRead()) {
                    DiffStats stats = before.diff(after, store.tree("users"), (tree, key, oldValue, newValue) ->
                            out.println(key.getStringWithoutLengthUtf8(0, key.capacity())
                                    + (oldValue == null ? ": added" : newValue == null ? ": removed" : ": changed")));
                    out.println(stats.pagesRead());
                }
            }
        }
        assertEquals("carol: added\n2\n", bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void aViewKeptPastItsCallFailsInTheCheckedMode() {
        try (Store store = Store.inMemory(StoreOptions.defaults().checked(true))) {
            Tree t = load(store, 10, 8);
            try (Snapshot before = store.beginRead()) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.delete(t, key(4));
                    tx.commit();
                }
                try (Snapshot after = store.beginRead()) {
                    List<DirectBuffer> kept = new ArrayList<>();
                    before.diff(after, t, (name, k, o, n) -> {
                        assertEquals(2L, k.getLong(0, java.nio.ByteOrder.BIG_ENDIAN) / 2);
                        kept.add(k);
                        kept.add(o);
                    });
                    assertEquals(2, kept.size());
                    for (DirectBuffer view : kept) {
                        assertThrows(IndexOutOfBoundsException.class, () -> view.getByte(0));
                    }
                }
            }
        }
    }

    @Test
    void snapshotsOfAnotherStoreAreRefused() {
        try (Store one = Store.inMemory(); Store two = Store.inMemory()) {
            Tree t = load(one, 3, 3);
            load(two, 3, 3);
            try (Snapshot a = one.beginRead(); Snapshot b = two.beginRead()) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.changes(b, t));
                assertTrue(e.getMessage().contains("another Store object"), e.getMessage());
            }
        }
    }

    static byte[] copy(DirectBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.capacity()];
        b.getBytes(0, out);
        return out;
    }
}
