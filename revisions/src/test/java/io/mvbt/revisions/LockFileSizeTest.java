// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.pagestore.local.LockFile;

/**
 * A sole writer's lock file is its header and reader slots, 64 KiB by default; the log of freed
 * pages is added by the first writer that takes turns, also when a reader made the file first
 * (writers that take turns in several processes: {@link ProcessWritersTest}).
 */
class LockFileSizeTest {
    private static final long FREED_LOG = 65_536L * LockFile.FREED_ENTRY_BYTES;

    @TempDir
    Path dir;

    @Test
    void aSoleWritersLockFileIs64KiB() throws IOException {
        Path path = dir.resolve("sole.mvbt");
        try (Store store = Store.open(path)) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(tx.createTree("t"), new byte[] {1}, new byte[] {2});
                tx.commit();
            }
            assertEquals(64 << 10, Files.size(FilePageStore.lockPathOf(path)));
        }
    }

    @Test
    void writersThatTakeTurnsAddTheirLogOfFreedPages() throws IOException {
        Path path = dir.resolve("shared.mvbt");
        Store.open(path).close();
        try (Store reader = Store.openReadOnly(path)) {
            assertEquals(64 << 10, Files.size(FilePageStore.lockPathOf(path)));
            StoreOptions shared = StoreOptions.defaults().sharedWriters(true);
            try (Store a = Store.open(path, shared)) {
                assertEquals((64 << 10) + FREED_LOG, Files.size(FilePageStore.lockPathOf(path)));
                for (int round = 0; round < 3; round++) {
                    try (WriteTxn tx = a.beginWrite()) {
                        Tree t = tx.createTreeIfAbsent("t");
                        for (int i = 0; i < 2000; i++) {
                            tx.put(t, Integer.toString(i).getBytes(), new byte[200]);
                        }
                        tx.commit();
                    }
                    try (WriteTxn tx = a.beginWrite()) {
                        tx.deleteRange(tx.createTreeIfAbsent("t"), new byte[] {0}, new byte[] {(byte) 0xFF});
                        tx.commit();
                    }
                }
                a.check().throwIfDamaged();
            }
            try (Snapshot s = reader.beginRead()) {
                assertEquals(0, s.count(reader.tree("t")));
            }
        }
    }
}
