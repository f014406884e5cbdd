// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;

/**
 * Only a file whose creation was cut short (nothing but zeros, no larger than its first growth) is
 * created again: a store whose first pages were zeroed, or that was cut below pages its revisions
 * need, is damage, refused without a write.
 */
class ZeroedStartTest {
    @TempDir
    Path dir;

    @Test
    void aStoreWhoseMetaRegionWasZeroedIsRefusedAndLeftAsItWas() throws Exception {
        Path path = dir.resolve("s.mvbt");
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTreeIfAbsent("t");
                for (int i = 0; i < 30_000; i++) {
                    tx.put(t, ("key-" + i).getBytes(), new byte[100]);
                }
                tx.commit();
            }
        }
        assertTrue(Files.size(path) > MetaPage.UNFINISHED_CREATION_BYTES, "the store should outgrow its first growth");
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw")) {
            f.write(new byte[256 << 10]);
        }
        byte[] before = Files.readAllBytes(path);
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(path, StoreOptions.defaults()));
        assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
        assertThrows(CorruptionException.class, () -> Store.openReadOnly(path));
        assertArrayEquals(before, Files.readAllBytes(path));
    }

    /**
     * A file cut below the pages of commits that this boot's page cache holds (a process killed, then
     * the file truncated from outside) is damage: refused, not opened at the older durable revision.
     */
    @Test
    void aFileTruncatedBelowThisBootsCommitsIsRefused() throws Exception {
        Path path = dir.resolve("grown.mvbt");
        Process child = ChildJvm.start(null, WriterChild.class, "grow", path.toString());
        long synced;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            assertTrue(first != null && first.startsWith("synced "), String.valueOf(first));
            synced = Long.parseLong(first.split(" ")[1]);
            String second = out.readLine();
            assertTrue(second != null && second.startsWith("grown "), String.valueOf(second));
            assertTrue(Long.parseLong(second.split(" ")[1]) > synced, second);
        } finally {
            child.toHandle().destroyForcibly();
            child.waitFor();
        }
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw")) {
            f.setLength(synced);
        }
        byte[] before = Files.readAllBytes(path);
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(path, StoreOptions.defaults()));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(path));
    }

    @Test
    void aCreationCutShortIsCreatedAgain() throws Exception {
        for (long size : new long[] {0, 64 << 10, MetaPage.UNFINISHED_CREATION_BYTES}) {
            Path path = dir.resolve("new-" + size + ".mvbt");
            try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw")) {
                f.setLength(size);
            }
            try (Store store = Store.open(path, StoreOptions.defaults())) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(tx.createTreeIfAbsent("t"), new byte[] {1}, new byte[] {2});
                    tx.commit();
                }
            }
            try (Store store = Store.open(path, StoreOptions.defaults()); Snapshot s = store.beginRead()) {
                assertEquals(1, s.count(store.tree("t")), "size " + size);
            }
        }
    }
}
