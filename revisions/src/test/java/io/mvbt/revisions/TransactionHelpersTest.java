// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link Store#write}, {@link Store#update} and {@link Store#read}: commit or abort, and return the result. */
class TransactionHelpersTest {
    private static final byte[] K = {1};
    private static final byte[] V = {2};

    @Test
    void writeCommitsAndReturnsTheResult() {
        try (Store store = Store.inMemory()) {
            long before = store.revision();
            String result = store.write(tx -> {
                tx.put(tx.createTree("t"), K, V);
                return "done";
            });
            assertEquals("done", result);
            assertEquals(before + 1, store.revision());
            assertEquals(2, (int) store.read(s -> s.get(store.tree("t"), K)[0]));
        }
    }

    @Test
    void anExceptionAbortsAndReachesTheCaller() {
        try (Store store = Store.inMemory()) {
            long before = store.revision();
            IllegalStateException thrown = new IllegalStateException("the work failed");
            assertSame(thrown, assertThrows(IllegalStateException.class, () -> store.update(tx -> {
                tx.createTree("t");
                throw thrown;
            })));
            assertEquals(before, store.revision());
            assertFalse(hasTree(store, "t"));
            // The writer went back: the next write goes ahead.
            store.update(tx -> tx.createTree("t"));
            assertTrue(hasTree(store, "t"));
        }
    }

    private static boolean hasTree(Store store, String name) {
        return store.read(s -> s.hasTree(store.tree(name)));
    }

    @Test
    void workThatEndsTheTransactionItselfIsNotCommittedTwice() {
        try (Store store = Store.inMemory()) {
            long before = store.revision();
            store.update(tx -> {
                tx.createTree("aborted");
                tx.abort();
            });
            assertEquals(before, store.revision());
            store.update(tx -> {
                tx.createTree("committed");
                tx.commit();
            });
            assertEquals(before + 1, store.revision());
        }
    }

    @Test
    void readClosesItsSnapshot() {
        try (Store store = Store.inMemory()) {
            Snapshot[] seen = new Snapshot[1];
            long revision = store.read(s -> {
                seen[0] = s;
                return s.revision();
            });
            assertEquals(store.revision(), revision);
            assertTrue(seen[0].isClosed());
        }
    }
}
