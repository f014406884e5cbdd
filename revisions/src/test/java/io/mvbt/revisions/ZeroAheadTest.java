// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.pagestore.local.FilePageStore;

/**
 * Zeros written ahead of a growth: past the end, they change no page count; a growth uses them
 * and writes the rest; truncation, close and a store's sync give them back; a store grown by the
 * writer gets the next growth's zeros from its prefaulter; and a file left with them by a crash
 * opens with them as free pages.
 */
class ZeroAheadTest {
    /** Pages written through the mapping, as without a shadow directory (what this test is about). */
    private static final StoreOptions MAPPED = StoreOptions.defaults().shadowDirectory(null);

    private static final int PAGE = 4096;

    @TempDir
    Path dir;

    private FilePageStore openFile(Path path) {
        return FilePageStore.open(path, PAGE, (channel, size) -> PAGE, 16);
    }

    @Test
    void zerosAheadWaitPastTheEndUntilAGrowthUsesThem() throws Exception {
        Path path = dir.resolve("file");
        FilePageStore pages = openFile(path);
        try {
            pages.extend(256);
            long count = pages.pageCount();
            UNSAFE.putLong(pages.address(count - 1), 42);
            // In pieces, as the prefaulter writes them.
            int calls = 1;
            while (pages.zeroAhead(count + 1024, 256 << 10)) {
                calls++;
            }
            assertEquals(16, calls, "4 MiB in pieces of 256 KiB");
            assertEquals(count, pages.pageCount(), "zeros ahead are no pages yet");
            assertEquals((count + 1024) * PAGE, Files.size(path));
            assertFalse(pages.zeroAhead(count + 1024, 256 << 10), "nothing left to write");

            pages.extend(count + 2048);
            assertEquals(count + 2048, pages.pageCount());
            assertEquals((count + 2048) * PAGE, Files.size(path));
            assertEquals(42, UNSAFE.getLong(pages.address(count - 1)), "a page in use is untouched");
            for (long p = count; p < count + 2048; p += 97) {
                assertEquals(0, UNSAFE.getLong(pages.address(p)), "page " + p + " reads as zero");
            }

            pages.zeroAhead(count + 4096, 1 << 20);
            assertEquals((pages.pageCount() + 256) * PAGE, Files.size(path), "1 MiB at most per call");
            pages.truncate(pages.pageCount());
            assertEquals(pages.pageCount() * PAGE, Files.size(path), "truncation to the page count drops them");

            assertFalse(pages.zeroAhead(count + 4096, 1 << 20), "after a truncation, none until the next growth");
            assertEquals(pages.pageCount() * PAGE, Files.size(path));
            pages.extend(pages.pageCount() + 256);
            pages.zeroAhead(count + 4096, 1 << 20);
            assertTrue(Files.size(path) > pages.pageCount() * PAGE);
        } finally {
            pages.close();
        }
        assertEquals((256 + 2048 + 256) * PAGE, Files.size(path), "close drops them");
    }

    @Test
    void filesThatOthersGrowGetNoZerosAhead() throws Exception {
        Path path = dir.resolve("shared");
        try (FilePageStore pages = FilePageStore.openShared(path, PAGE, (channel, size) -> PAGE, 16, 0)) {
            pages.extend(256);
            assertFalse(pages.zeroAhead(1024, 1 << 20));
            assertEquals(256L * PAGE, Files.size(path), "another process would take these pages for its own");
        }
        try (FilePageStore pages = FilePageStore.openReadOnly(path, (channel, size) -> PAGE, 16)) {
            assertFalse(pages.zeroAhead(1024, 1 << 20));
            assertEquals(256L * PAGE, Files.size(path));
        }
    }

    @Test
    void aGrowingStoreFindsItsNextGrowthZeroedAndASyncGivesThemBack() throws Exception {
        Path path = dir.resolve("store.mvbt");
        byte[] value = new byte[100];
        try (Store store = Store.open(path, MAPPED.durability(Durability.NORMAL))) {
            Tree tree;
            try (WriteTxn tx = store.beginWrite()) {
                tree = tx.createTreeIfAbsent("t");
                tx.commit();
            }
            long zeroedAhead = 0;
            for (int i = 0; i < 200_000 && zeroedAhead == 0; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(tree, key(i), value);
                    tx.commit();
                }
                if (i % 1000 == 999) {
                    // The prefaulter writes them soon after a growth, not at once.
                    for (int wait = 0; wait < 50 && zeroedAhead == 0; wait++) {
                        zeroedAhead = Files.size(path) - store.stats().pagesInFile() * PAGE;
                        if (zeroedAhead == 0) {
                            Thread.sleep(2);
                        }
                    }
                }
            }
            assertTrue(zeroedAhead > 0, "no zeros were written ahead of the next growth");
            store.sync();
            assertEquals(store.stats().pagesInFile() * PAGE, Files.size(path), "sync gives them back");
        }
    }

    @Test
    void aFileLeftWithZerosAheadByACrashOpensWithThemFree() throws Exception {
        Path path = dir.resolve("crashed.mvbt");
        byte[] value = new byte[100];
        try (Store store = Store.open(path, MAPPED.durability(Durability.NORMAL))) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree tree = tx.createTreeIfAbsent("t");
                for (int i = 0; i < 5000; i++) {
                    tx.put(tree, key(i), value);
                }
                tx.commit();
            }
        }
        long before = Files.size(path);
        // What a kill between the prefaulter's writes and a growth leaves: zeros past the last page.
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
            file.setLength(before + (3L << 20) + 3 * PAGE);
        }
        try (Store store = Store.open(path, MAPPED.durability(Durability.NORMAL))) {
            store.check().throwIfDamaged();
            assertTrue(store.stats().pagesInFile() * PAGE > before, "the zeros are pages of the store");
            try (Snapshot s = store.beginRead()) {
                Tree tree = store.tree("t");
                byte[] got = s.get(tree, key(4999));
                assertArrayEquals(value, got);
            }
            try (WriteTxn tx = store.beginWrite()) {
                Tree tree = store.tree("t");
                for (int i = 5000; i < 6000; i++) {
                    tx.put(tree, key(i), value);
                }
                tx.commit();
            }
            store.check().throwIfDamaged();
        }
    }

    private static byte[] key(int i) {
        byte[] k = new byte[8];
        for (int b = 0; b < 8; b++) {
            k[b] = (byte) ((long) i * 0x9E3779B97F4A7C15L >>> (56 - 8 * b));
        }
        return k;
    }
}
