// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tree handles stand for their names: kept across a reopen, they reach the same tree. */
class TreeHandleTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A store with tree "t" of 100 entries; returns the handle of the store that made it, now closed. */
    private Tree storeWithTree(Path path) {
        try (Store s1 = Store.open(path); WriteTxn tx = s1.beginWrite()) {
            Tree t = tx.createTree("t");
            for (int i = 0; i < 100; i++) {
                tx.put(t, bytes(String.format("k%05d", i)), bytes("v" + i));
            }
            tx.commit();
            return t;
        }
    }

    @Test
    void aHandleKeptAcrossAReopenReadsAndWritesItsOwnTree() {
        Path path = dir.resolve("kept.mvbt");
        Tree t = storeWithTree(path);
        try (Store s2 = Store.open(path)) {
            Tree x;
            try (WriteTxn tx = s2.beginWrite()) {
                x = tx.createTree("x");
                tx.put(x, bytes("only"), bytes("1"));
                tx.commit();
            }
            try (Snapshot s = s2.beginRead()) {
                assertArrayEquals(bytes("v1"), s.get(t, bytes("k00001")));
                assertEquals(100, s.count(t));
            }
            try (WriteTxn tx = s2.beginWrite()) {
                tx.put(t, bytes("via-old-handle"), bytes("1"));
                tx.commit();
            }
            try (Snapshot s = s2.beginRead()) {
                assertEquals(101, s.count(s2.tree("t")));
                assertEquals(1, s.count(x));
                assertNull(s.get(x, bytes("via-old-handle")));
            }
            assertTrue(s2.check().ok(), s2.check().toString());
        }
        try (Store s3 = Store.open(path); Snapshot s = s3.beginRead()) {
            assertEquals(List.of("t", "x"), s.treeNames());
            assertEquals(101, s.count(t));
            assertTrue(s3.check().ok(), s3.check().toString());
        }
    }

    @Test
    void aHandleUsedFirstAfterAReopenLosesNothing() {
        Path path = dir.resolve("first.mvbt");
        Tree t = storeWithTree(path);
        try (Store s2 = Store.open(path)) {
            try (WriteTxn tx = s2.beginWrite()) {
                tx.put(t, bytes("via-old-handle"), bytes("1"));
                tx.commit();
            }
            try (WriteTxn tx = s2.beginWrite()) {
                Tree x = tx.createTree("x");
                tx.put(x, bytes("only"), bytes("1"));
                tx.commit();
            }
        }
        try (Store s3 = Store.open(path); Snapshot s = s3.beginRead()) {
            assertEquals(List.of("t", "x"), s.treeNames());
            assertEquals(101, s.count(s3.tree("t")));
            assertEquals(1, s.count(s3.tree("x")));
            assertTrue(s3.check().ok(), s3.check().toString());
        }
    }

    @Test
    void handlesOfTwoOpenStoresEachMeanTheTreeOfTheirName() {
        try (Store a = Store.inMemory(); Store b = Store.inMemory()) {
            Tree ta = a.tree("t");
            b.tree("other");
            try (WriteTxn tx = b.beginWrite()) {
                tx.createTree("t");
                tx.put(ta, bytes("k"), bytes("in b"));
                tx.commit();
            }
            try (Snapshot s = b.beginRead()) {
                assertArrayEquals(bytes("in b"), s.get(b.tree("t"), bytes("k")));
            }
            try (Snapshot s = a.beginRead()) {
                assertTrue(!s.hasTree(ta));
            }
        }
    }

    @Test
    void everyLoneSurrogateInANameIsRefused() {
        try (Store store = Store.inMemory()) {
            for (int c = 1; c <= 0xFFFF; c++) {
                String name = "n-" + (char) c;
                String front = (char) c + "x";
                if (Character.isSurrogate((char) c)) {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.tree(name));
                    assertTrue(e.getMessage().contains("unpaired surrogate"), e.getMessage());
                    // Alone at the front, or in the middle, too.
                    assertThrows(IllegalArgumentException.class, () -> store.tree(front));
                } else {
                    assertEquals(name, store.tree(name).name());
                }
            }
            // A pair is a character; the wrong order is two lone surrogates.
            assertEquals("\uD83D\uDE00", store.tree("\uD83D\uDE00").name());
            assertThrows(IllegalArgumentException.class, () -> store.tree("\uDE00\uD83D"));
            try (WriteTxn tx = store.beginWrite()) {
                assertThrows(IllegalArgumentException.class, () -> tx.createTree("lone-\uD800"));
                assertThrows(IllegalArgumentException.class, () -> tx.createTree("lone-\uDBFF"));
                tx.createTree("pair-\uD800\uDC00");
                tx.commit();
            }
            try (Snapshot s = store.beginRead()) {
                assertEquals(List.of("pair-\uD800\uDC00"), s.treeNames());
            }
        }
    }

    @Test
    void findTreeReturnsAHandleOnlyForATreeTheNewestRevisionHas() {
        try (Store store = Store.inMemory()) {
            assertTrue(store.findTree("t").isEmpty());
            Tree absent = store.tree("t");
            try (Snapshot s = store.beginRead()) {
                assertThrows(io.mvbt.TreeNotFoundException.class, () -> s.get(absent, bytes("k")));
            }
            try (WriteTxn tx = store.beginWrite()) {
                tx.createTree("t");
                assertTrue(store.findTree("t").isEmpty(), "not before the commit");
                tx.commit();
            }
            assertSame(absent, store.findTree("t").orElseThrow());
            try (WriteTxn tx = store.beginWrite()) {
                tx.dropTree(absent);
                tx.commit();
            }
            assertTrue(store.findTree("t").isEmpty());
        }
    }
}
