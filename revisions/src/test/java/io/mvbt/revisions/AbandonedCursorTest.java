// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Cursors of a write transaction dropped without a close (a loop left early) are let go once
 * unreachable, instead of being told of every later change; the ones still held keep working.
 */
class AbandonedCursorTest {
    private static byte[] key(int i) {
        return String.format("k%06d", i).getBytes();
    }

    @Test
    void droppedCursorsAreLetGoAndHeldOnesStayCorrect() throws Exception {
        try (Store store = Store.inMemory(); WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree("t");
            for (int i = 0; i < 100; i++) {
                tx.put(t, key(i), new byte[] {1});
            }
            Cursor kept = tx.cursor(t);
            assertTrue(kept.seek(key(50)));
            for (int i = 0; i < 10_000; i++) {
                Cursor dropped = tx.cursor(t);
                dropped.first();
            }
            int registered = tx.registeredCursors();
            assertTrue(registered > 1, "the dropped cursors should be registered until collected");
            for (int attempt = 0; attempt < 20 && tx.registeredCursors() > 1; attempt++) {
                System.gc();
                Thread.sleep(10);
                tx.put(t, key(1_000 + attempt), new byte[] {2});
            }
            assertEquals(1, tx.registeredCursors(), "dropped cursors are still told of every change");
            // The cursor still held was told of the changes and stands where it stood.
            tx.delete(t, key(49));
            assertEquals("k000050", new String(kept.keyBytes()));
            assertTrue(kept.prev());
            assertEquals("k000048", new String(kept.keyBytes()));
            kept.close();
            assertEquals(0, tx.registeredCursors());
        }
    }
}
