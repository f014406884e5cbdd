// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.StoreFailedException;
import io.mvbt.pagestore.PageStore;

/**
 * A store that {@link Store#check} finds damaged writes nothing more: a free map that calls pages
 * in use free would otherwise hand them to the next write, and cut them off the file at close.
 */
class DamageFoundTest {
    @TempDir
    Path dir;

    /** Some 3 MiB of entries: more than the 1 MiB unit a file shrinks by. */
    private static final int KEYS = 12_000;

    private static byte[] value(int i) {
        return ("value " + i + " ".repeat(200)).getBytes();
    }

    @Test
    void aStoreFoundDamagedRefusesWritesAndKeepsItsPages() throws Exception {
        Path file = dir.resolve("store");
        try (Store store = Store.open(file)) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTreeIfAbsent("t");
                for (int i = 0; i < KEYS; i++) {
                    tx.put(t, key(i), value(i));
                }
                tx.commit();
            }
            store.sync();
            long size = Files.size(file);
            // What a damaged free map says once loaded: every page past the metas is free.
            for (long p = PageStore.META_SLOTS; p < store.pages().pageCount(); p++) {
                store.space().reusable.set(p);
            }

            CheckReport report = store.check();

            assertFalse(report.ok());
            StoreFailedException refused = assertThrows(StoreFailedException.class, store::beginWrite);
            assertTrue(refused.getMessage().contains("check() found"), refused.getMessage());
            store.sync();
            assertEquals(size, Files.size(file), "sync gave back no pages");
            store.close();
            assertEquals(size, Files.size(file), "close gave back no pages");
        }

        try (Store store = Store.open(file); Snapshot s = store.beginRead()) {
            Tree t = store.tree("t");
            assertEquals(KEYS, s.count(t));
            for (int i = 0; i < KEYS; i += 997) {
                assertArrayEquals(value(i), s.get(t, key(i)));
            }
            assertTrue(store.check().ok(), "the file itself was never damaged");
        }
    }
}
