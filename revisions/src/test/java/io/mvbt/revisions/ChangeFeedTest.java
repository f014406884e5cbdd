// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.NamedRevisionNotFoundException;
import io.mvbt.ReadOnlyStoreException;

/** Change feeds and changesSince: net changes between positions, moved only once a batch is taken in. */
class ChangeFeedTest {
    @TempDir
    Path dir;

    private Store open() {
        return Store.open(dir.resolve("s.mvbt"), StoreOptions.defaults().checked(true).durability(Durability.NORMAL));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(DirectBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] copy = new byte[buffer.capacity()];
        buffer.getBytes(0, copy);
        return new String(copy, StandardCharsets.UTF_8);
    }

    /** Records a batch as lines "tree key old new", tree events as "+tree" / "-tree". */
    static class Recorder implements FeedVisitor {
        final List<String> lines = new ArrayList<>();
        long from = Long.MIN_VALUE;
        long to = Long.MIN_VALUE;

        @Override
        public void treeCreated(String tree) {
            lines.add("+" + tree);
        }

        @Override
        public void treeDropped(String tree, long entries) {
            lines.add("-" + tree + " " + entries);
        }

        @Override
        public void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue) {
            lines.add(tree + " " + s(key) + " " + s(oldValue) + " " + s(newValue));
        }

        @Override
        public void reached(long from, long to) {
            this.from = from;
            this.to = to;
        }
    }

    private static void put(Store store, String tree, String key, String value) {
        store.update(tx -> tx.put(tx.createTreeIfAbsent(tree), b(key), b(value)));
    }

    private static List<String> feedNames(Store store) {
        List<String> out = new ArrayList<>();
        for (NamedRevision n : store.namedRevisions()) {
            out.add(n.name());
        }
        return out;
    }

    @Test
    void firstPollReportsEverythingThenOnlyNetChanges() {
        try (Store store = open()) {
            put(store, "a", "k1", "v1");
            put(store, "a", "k2", "v2");
            ChangeFeed feed = store.changeFeed("replica");
            assertEquals(ChangeFeed.BEGINNING, feed.position());
            Recorder first = new Recorder();
            long reached = feed.poll(first);
            assertEquals(List.of("+a", "a k1 null v1", "a k2 null v2"), first.lines);
            assertEquals(ChangeFeed.BEGINNING, first.from);
            assertEquals(reached, first.to);
            assertEquals(reached, feed.position());
            assertEquals(List.of("feed:replica@" + reached), feedNames(store));

            put(store, "a", "k3", "gone");
            store.update(tx -> tx.delete(store.tree("a"), b("k3")));
            put(store, "a", "k1", "x");
            put(store, "a", "k1", "v1-new");
            store.update(tx -> tx.delete(store.tree("a"), b("k2")));
            store.update(tx -> tx.createTree("b"));
            Recorder second = new Recorder();
            long next = feed.poll(second);
            assertEquals(List.of("a k1 v1 v1-new", "a k2 v2 null", "+b"), second.lines,
                    "net changes: k3 came and went, k1 is reported once with its latest value");
            assertEquals(reached, second.from);
            assertEquals(next, second.to);
            assertEquals(List.of("feed:replica@" + next), feedNames(store), "the old position is released");
        }
    }

    @Test
    void aPollWithNothingNewCommitsNothingEvenBesideAnotherFeed() {
        try (Store store = open()) {
            put(store, "a", "k", "v");
            ChangeFeed one = store.changeFeed("one");
            ChangeFeed two = store.changeFeed("two");
            one.poll(new Recorder());
            two.poll(new Recorder());
            long revision = store.revision();
            Recorder idle = new Recorder();
            assertEquals(one.position(), one.poll(idle));
            assertEquals(two.position(), two.poll(new Recorder()));
            assertEquals(revision, store.revision(), "the other feed's mark changed no tree: no commit");
            assertEquals(List.of(), idle.lines);
            assertEquals(Long.MIN_VALUE, idle.to, "no batch, nothing reached");
        }
    }

    @Test
    void aBatchNotTakenInComesAgainAsItWas() {
        try (Store store = open()) {
            put(store, "a", "k1", "v1");
            ChangeFeed feed = store.changeFeed("f");
            long start = feed.poll(new Recorder());
            put(store, "a", "k2", "v2");
            Recorder failed = new Recorder() {
                @Override
                public void reached(long from, long to) {
                    super.reached(from, to);
                    throw new IllegalStateException("the replica's commit failed");
                }
            };
            assertThrows(IllegalStateException.class, () -> feed.poll(failed));
            assertEquals(start, feed.position(), "the position stays");
            put(store, "a", "k3", "v3");

            Recorder again = new Recorder();
            long reached = feed.poll(again);
            assertEquals(failed.lines, again.lines, "the same batch, not the newer k3");
            assertEquals(start, again.from);
            assertEquals(failed.to, again.to);
            assertEquals(failed.to, reached);

            Recorder rest = new Recorder();
            feed.poll(rest);
            assertEquals(List.of("a k3 null v3"), rest.lines);
            assertEquals(1, feedNames(store).size());
        }
    }

    @Test
    void aVisitorThatThrowsMidBatchLeavesThePosition() {
        try (Store store = open()) {
            put(store, "a", "k1", "v1");
            ChangeFeed feed = store.changeFeed("f");
            assertThrows(IllegalStateException.class, () -> feed.poll((tree, key, o, n) -> {
                throw new IllegalStateException("consumer failed");
            }));
            assertEquals(ChangeFeed.BEGINNING, feed.position());
            Recorder again = new Recorder();
            feed.poll(again);
            assertEquals(List.of("+a", "a k1 null v1"), again.lines);
        }
    }

    @Test
    void thePositionSurvivesReopenAndDropReleasesIt() {
        long position;
        try (Store store = open()) {
            put(store, "a", "k1", "v1");
            position = store.changeFeed("f").poll(new Recorder());
            put(store, "a", "k2", "v2");
        }
        try (Store store = open()) {
            ChangeFeed feed = store.changeFeed("f");
            assertEquals(position, feed.position());
            Recorder after = new Recorder();
            feed.poll(after);
            assertEquals(List.of("a k2 null v2"), after.lines);
            feed.drop();
            assertEquals(ChangeFeed.BEGINNING, feed.position());
            assertEquals(List.of(), feedNames(store));
        }
    }

    @Test
    void aPositionPinsThePagesChangedSinceUntilItMovesOrIsDropped() {
        try (Store store = open()) {
            for (int i = 0; i < 2000; i++) {
                put(store, "a", String.format("k%05d", i % 500), "first " + i);
            }
            ChangeFeed feed = store.changeFeed("slow");
            feed.poll(new Recorder());
            store.update(tx -> {
                for (int i = 0; i < 500; i++) {
                    tx.put(store.tree("a"), b(String.format("k%05d", i)), b("second " + i));
                }
            });
            store.sync();
            NamedRevision position = store.namedRevisions().get(0);
            assertTrue(position.pinnedPages() > 0, "the rewritten tree's old pages wait for the feed: " + position);
            long moved = feed.poll(new Recorder());
            store.sync();
            NamedRevision after = store.namedRevisions().get(0);
            assertEquals(moved, after.revision());
            // The release's commit rewrote the page of the names the new position's catalog holds: that one waits.
            assertTrue(after.pinnedPages() <= 2, "no tree changed since the new position: " + after + ", before " + position);
            assertTrue(position.pinnedPages() > 4 * after.pinnedPages(), "before " + position + ", after " + after);
            feed.drop();
            assertEquals(List.of(), store.namedRevisions());
        }
    }

    @Test
    void changesSinceNeedsAReadableRevision() {
        try (Store store = open()) {
            put(store, "a", "k0", "v0");
            long unnamed = store.revision();
            store.update(tx -> tx.delete(store.tree("a"), b("k0")));
            put(store, "a", "k1", "v1");
            long named = store.retain("before");
            put(store, "a", "k1", "v2");
            put(store, "a", "k2", "v3");
            Recorder since = new Recorder();
            assertEquals(store.revision(), store.changesSince("before", since));
            assertEquals(List.of("a k1 v1 v2", "a k2 null v3"), since.lines);
            Recorder byNumber = new Recorder();
            store.changesSince(named, byNumber);
            assertEquals(since.lines, byNumber.lines);
            Recorder all = new Recorder();
            store.changesSince(ChangeFeed.BEGINNING, all);
            assertEquals(List.of("+a", "a k1 null v2", "a k2 null v3"), all.lines);
            assertTrue(unnamed < named);
            Recorder none = new Recorder();
            assertEquals(store.revision(), store.changesSince(store.revision(), none));
            assertEquals(List.of(), none.lines);

            NamedRevisionNotFoundException e = assertThrows(NamedRevisionNotFoundException.class,
                    () -> store.changesSince(unnamed, new Recorder()));
            assertTrue(e.getMessage().contains("retain"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.changesSince(store.revision() + 1, new Recorder()));
        }
    }

    @Test
    void aReadOnlyStorePeeksButCannotMove() {
        Path file = dir.resolve("s.mvbt");
        try (Store writer = open()) {
            put(writer, "a", "k1", "v1");
            long position = writer.changeFeed("f").poll(new Recorder());
            put(writer, "a", "k2", "v2");
            try (Store reader = Store.openReadOnly(file)) {
                ChangeFeed feed = reader.changeFeed("f");
                assertEquals(position, feed.position());
                Recorder peeked = new Recorder();
                assertEquals(writer.revision(), feed.peek(peeked));
                assertEquals(List.of("a k2 null v2"), peeked.lines);
                ReadOnlyStoreException e = assertThrows(ReadOnlyStoreException.class, () -> feed.poll(new Recorder()));
                assertTrue(e.getMessage().contains("peek"), e.getMessage());
                Recorder since = new Recorder();
                reader.changesSince(position, since);
                assertEquals(peeked.lines, since.lines);
            }
        }
    }

    @Test
    void aFeedKeepsAReplicaEqualOverRandomHistories() {
        Random random = new Random(49);
        try (Store store = open()) {
            ChangeFeed feed = store.changeFeed("model");
            TreeMap<String, TreeMap<String, String>> replica = new TreeMap<>();
            FeedVisitor apply = new FeedVisitor() {
                @Override
                public void treeCreated(String tree) {
                    replica.put(tree, new TreeMap<>());
                }

                @Override
                public void treeDropped(String tree, long entries) {
                    replica.remove(tree);
                }

                @Override
                public void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue) {
                    if (newValue == null) {
                        replica.get(tree).remove(s(key));
                    } else {
                        replica.get(tree).put(s(key), s(newValue));
                    }
                }
            };
            for (int round = 0; round < 40; round++) {
                int commits = random.nextInt(4);
                for (int c = 0; c < commits; c++) {
                    store.update(tx -> {
                        Tree t = tx.createTreeIfAbsent("t" + random.nextInt(3));
                        for (int i = 0; i < 30; i++) {
                            String key = "k" + random.nextInt(200);
                            if (random.nextInt(3) == 0) {
                                tx.delete(t, b(key));
                            } else {
                                tx.put(t, b(key), b("v" + random.nextInt(1000)));
                            }
                        }
                        if (random.nextInt(10) == 0) {
                            tx.deleteRange(t, b("k1"), b("k5"));
                        }
                        if (random.nextInt(12) == 0) {
                            tx.dropTree(store.tree("t" + random.nextInt(3)));
                        }
                    });
                }
                feed.poll(apply);
                try (Snapshot s = store.beginRead()) {
                    TreeMap<String, TreeMap<String, String>> expected = new TreeMap<>();
                    for (String name : s.treeNames()) {
                        TreeMap<String, String> entries = new TreeMap<>();
                        try (Cursor c = s.cursor(store.tree(name))) {
                            for (boolean ok = c.first(); ok; ok = c.next()) {
                                entries.put(new String(c.keyBytes(), StandardCharsets.UTF_8),
                                        new String(c.valueBytes(), StandardCharsets.UTF_8));
                            }
                        }
                        expected.put(name, entries);
                    }
                    assertEquals(expected, replica, "round " + round);
                }
            }
        }
    }
}
