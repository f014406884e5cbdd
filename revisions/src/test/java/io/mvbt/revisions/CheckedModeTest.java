// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;

/**
 * The checked mode ({@link StoreOptions#checked}): a commit whose pages break an invariant is
 * refused with the revision and the page named, and the store keeps the revision before it.
 * Damage is planted through the transaction's own state, as a fault of the engine would leave it.
 */
class CheckedModeTest {
    @TempDir
    Path dir;

    private static final StoreOptions CHECKED = StoreOptions.defaults().checked(true);

    /** A committed tree deep enough to have branches. */
    private static Tree fill(Store store) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree("t");
            for (int i = 0; i < 2_000; i++) {
                tx.put(t, key(i), new byte[40]);
            }
            tx.commit();
            return t;
        }
    }

    @Test
    void aWrongCountIsRefusedAndTheStoreKeepsItsRevision() {
        Path path = dir.resolve("count.mvbt");
        try (Store store = Store.open(path, CHECKED)) {
            Tree t = fill(store);
            long before = store.revision();
            WriteTxn tx = store.beginWrite();
            tx.put(t, key(5_000), new byte[1]);
            // A count off by one, as a faulty split would leave it.
            tx.rootOf(t).entries++;
            CorruptionException e = assertThrows(CorruptionException.class, tx::commit);
            assertTrue(e.getMessage().contains("refused the commit of revision " + (before + 1)), e.getMessage());
            assertTrue(e.getMessage().contains("tree 't'"), e.getMessage());
            assertTrue(tx.isFinished());
            assertEquals(before, store.revision());
            try (Snapshot s = store.beginRead()) {
                assertEquals(2_000, s.count(t));
                assertFalse(s.contains(t, key(5_000)));
            }
            // The writer is free again, and what it commits next is checked and published.
            try (WriteTxn next = store.beginWrite()) {
                next.put(t, key(5_001), new byte[1]);
                next.commit();
            }
            assertTrue(store.check().ok(), store.check().toString());
        }
        try (Store store = Store.open(path, CHECKED); Snapshot s = store.beginRead()) {
            assertEquals(2_001, s.count(store.tree("t")));
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void aKeyOnTheFirstEntryOfABranchIsRefusedNamingThePage() {
        try (Store store = Store.inMemory(CHECKED)) {
            Tree t = fill(store);
            WriteTxn tx = store.beginWrite();
            tx.put(t, key(7), new byte[2]);
            io.mvbt.btree.TreeRoot root = tx.rootOf(t);
            TxnPages pages = (TxnPages) tx.reader();
            long branch = pages.page(root.page, root.revision, io.mvbt.btree.PageHeader.TYPE_BRANCH);
            // The first two slots trade entries: the first now carries a key.
            long slots = branch + io.mvbt.btree.Node.SLOTS;
            short first = org.agrona.UnsafeAccess.UNSAFE.getShort(slots);
            org.agrona.UnsafeAccess.UNSAFE.putShort(slots, org.agrona.UnsafeAccess.UNSAFE.getShort(slots + io.mvbt.btree.Node.SLOT_SIZE));
            org.agrona.UnsafeAccess.UNSAFE.putShort(slots + io.mvbt.btree.Node.SLOT_SIZE, first);
            CorruptionException e = assertThrows(CorruptionException.class, tx::commit);
            assertEquals(root.page, e.pageNo(), e.getMessage());
            assertTrue(e.getMessage().contains("first child of a branch carries a key"), e.getMessage());
            try (Snapshot s = store.beginRead()) {
                assertArrayEquals(new byte[40], s.get(t, key(7)));
            }
        }
    }

    @Test
    void aPageWrittenButReachedByNothingIsALeak() {
        try (Store store = Store.inMemory(CHECKED)) {
            Tree t = fill(store);
            WriteTxn tx = store.beginWrite();
            tx.put(t, key(9), new byte[3]);
            long leaked = ((TxnPages) tx.reader()).allocate(1);
            CorruptionException e = assertThrows(CorruptionException.class, tx::commit);
            assertEquals(leaked, e.pageNo(), e.getMessage());
            assertTrue(e.getMessage().contains("nothing reaches it"), e.getMessage());
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void uncheckedStoresPublishWithoutTheCheck() {
        try (Store store = Store.inMemory(StoreOptions.defaults().checked(false))) {
            Tree t = fill(store);
            WriteTxn tx = store.beginWrite();
            tx.put(t, key(5_000), new byte[1]);
            tx.rootOf(t).entries++;
            tx.commit();
            // What the check would have refused is now there for the full checker to find.
            assertFalse(store.check().ok());
        }
    }
}
