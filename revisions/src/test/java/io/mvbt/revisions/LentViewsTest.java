// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.mvbt.testkit.CallerBuffers;

/**
 * Memory the store lends the caller (a value {@code get} wraps into the caller's buffer, a cursor's
 * key and value) stays valid only as documented; in the checked mode a view used after that reads
 * as empty and fails, instead of reading a page reused for other data.
 */
class LentViewsTest {
    private Store store;
    private Tree tree;

    @BeforeEach
    void fill() {
        store = Store.inMemory(StoreOptions.defaults().checked(true));
        try (WriteTxn tx = store.beginWrite()) {
            tree = tx.createTree("t");
            for (int i = 0; i < 500; i++) {
                tx.put(tree, key(i), ("value-" + i).getBytes());
            }
            // A value in overflow pages, lent from a run of pages.
            tx.put(tree, key(1_000), new byte[10_000]);
            tx.commit();
        }
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static void assertRevoked(DirectBuffer view) {
        assertEquals(0, view.capacity());
        assertThrows(IndexOutOfBoundsException.class, () -> view.getByte(0));
    }

    @Test
    void aValueLentBySnapshotFailsOnceTheSnapshotCloses() {
        UnsafeBuffer small = new UnsafeBuffer(0, 0);
        UnsafeBuffer large = new UnsafeBuffer(0, 0);
        try (Snapshot s = store.beginRead()) {
            assertTrue(s.get(tree, new UnsafeBuffer(key(7)), small));
            assertArrayEquals("value-7".getBytes(), CallerBuffers.bytes(small));
            assertTrue(s.get(tree, CallerBuffers.FRESH_DIRECT.wrap(key(1_000)), large));
            assertEquals(10_000, large.capacity());
        }
        assertRevoked(small);
        assertRevoked(large);
    }

    @Test
    void aBufferTheCallerRewrappedIsLeftAlone() {
        UnsafeBuffer out = new UnsafeBuffer(0, 0);
        byte[] own = {1, 2, 3};
        try (Snapshot s = store.beginRead()) {
            assertTrue(s.get(tree, new UnsafeBuffer(key(7)), out));
            out.wrap(own);
        }
        assertEquals(3, out.capacity());
        assertEquals(2, out.getByte(1));
    }

    @Test
    void aValueLentByWriteTxnFailsAfterItsNextChange() {
        try (WriteTxn tx = store.beginWrite()) {
            UnsafeBuffer out = new UnsafeBuffer(0, 0);
            assertTrue(tx.get(tree, new UnsafeBuffer(key(7)), out));
            assertEquals('v', out.getByte(0));
            tx.put(tree, key(8), new byte[] {9});
            assertRevoked(out);
            assertTrue(tx.get(tree, new UnsafeBuffer(key(7)), out));
            tx.commit();
            assertRevoked(out);
        }
    }

    @Test
    void aCursorsViewsFailOnceItMoves() {
        try (Snapshot s = store.beginRead(); Cursor c = s.cursor(tree)) {
            assertTrue(c.first());
            DirectBuffer key = c.key();
            DirectBuffer value = c.value();
            assertArrayEquals(key(0), CallerBuffers.bytes(key));
            assertTrue(c.next());
            assertRevoked(key);
            assertRevoked(value);
            DirectBuffer next = c.key();
            assertArrayEquals(key(1), CallerBuffers.bytes(next));
            c.close();
            assertRevoked(next);
        }
    }

    @Test
    void aCursorsViewsFailOnceItsSnapshotCloses() {
        DirectBuffer key;
        try (Snapshot s = store.beginRead()) {
            Cursor c = s.cursor(tree);
            assertTrue(c.last());
            key = c.key();
            assertArrayEquals(key(1_000), CallerBuffers.bytes(key));
        }
        assertRevoked(key);
    }

    @Test
    void aLongScanStaysBoundedAndTheNewestViewsAreStillRevoked() {
        UnsafeBuffer last = new UnsafeBuffer(0, 0);
        try (Snapshot s = store.beginRead()) {
            for (int round = 0; round < 10; round++) {
                for (int i = 0; i < 500; i++) {
                    last = new UnsafeBuffer(0, 0);
                    assertTrue(s.get(tree, new UnsafeBuffer(key(i)), last));
                }
            }
        }
        assertRevoked(last);
    }
}
