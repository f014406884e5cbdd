// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;
import io.mvbt.StoreLockedException;
import io.mvbt.pagestore.PageStore;

/** A store file: growth in chunks, mapping ranges, runs across them, truncation, read-only followers. */
class FilePageStoreTest {
    private static final int PAGE = 4096;
    /** Pages in one chunk of growth (1 MiB). */
    private static final int CHUNK = (1 << 20) / PAGE;
    private static final long MARK = 0x5445535453544f52L;

    @TempDir
    Path dir;

    /** Tells a file of this test by the mark in its first page, as the meta pages tell a store. */
    private static final FilePageStore.PageSizeReader READER = (channel, size) -> {
        ByteBuffer head = ByteBuffer.allocate(8);
        channel.read(head, 0);
        long mark = head.flip().remaining() == 8 ? head.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong() : 0;
        if (mark == MARK) {
            return PAGE;
        }
        if (mark == 0) {
            return 0;
        }
        throw new CorruptionException(-1, "not a store of this test");
    };

    private static FilePageStore create(Path path) {
        FilePageStore store = FilePageStore.open(path, PAGE, READER, 8);
        store.extend(PageStore.META_SLOTS);
        UNSAFE.putLong(store.address(0), MARK);
        return store;
    }

    private static void fill(PageStore store, long pageNo) {
        UNSAFE.setMemory(store.address(pageNo), PAGE, (byte) pageNo);
    }

    private static void assertFilled(long address, long pageNo) {
        for (int i = 0; i < PAGE; i += 511) {
            assertEquals((byte) pageNo, UNSAFE.getByte(address + i), "page " + pageNo + " byte " + i);
        }
    }

    @Test
    void aStoreGrowsInWholeChunksAndKeepsItsPagesAcrossAReopen() throws IOException {
        Path path = dir.resolve("grow.store");
        try (FilePageStore store = create(path)) {
            assertTrue(store.created());
            assertEquals(CHUNK, store.pageCount());
            store.extend(CHUNK + 1);
            assertEquals(2 * CHUNK, store.pageCount());
            for (long p = PageStore.META_SLOTS; p < store.pageCount(); p += 37) {
                fill(store, p);
            }
            store.sync();
        }
        assertEquals(2L * CHUNK * PAGE, Files.size(path));
        try (FilePageStore store = FilePageStore.open(path, 8192, READER, 8)) {
            // The page size is the file's, whatever a new store would get.
            assertEquals(PAGE, store.pageSize());
            assertFalse(store.created());
            for (long p = PageStore.META_SLOTS; p < store.pageCount(); p += 37) {
                assertFilled(store.address(p), p);
            }
        }
    }

    @Test
    void aRunAcrossTwoMappingRangesIsReadWhole() {
        try (FilePageStore store = create(dir.resolve("ranges.store"))) {
            store.extend(2 * CHUNK);
            // Two growths, two ranges: the boundary lies at the end of the first chunk.
            assertEquals(CHUNK, store.runEnd(CHUNK - 10));
            long first = CHUNK - 6;
            int pages = 12;
            for (long p = first; p < first + pages; p++) {
                fill(store, p);
            }
            long run = store.runAddress(first, pages);
            for (int i = 0; i < pages; i++) {
                assertFilled(run + (long) i * PAGE, first + i);
            }
            // The same mapping again, and a buffer of the run for checksums.
            assertEquals(run, store.runAddress(first, pages));
            ByteBuffer buffer = store.buffer(first, pages);
            assertEquals(pages * PAGE, buffer.remaining());
            assertEquals((byte) (first + pages - 1), buffer.get((pages - 1) * PAGE + 7));
            // A run within one range is where its first page is.
            assertEquals(store.address(10), store.runAddress(10, 5));
        }
    }

    @Test
    void truncationGivesTheTailBack() throws IOException {
        Path path = dir.resolve("tail.store");
        try (FilePageStore store = create(path)) {
            store.extend(3 * CHUNK);
            fill(store, 100);
            store.truncate(CHUNK);
            assertEquals(CHUNK, store.pageCount());
            assertEquals((long) CHUNK * PAGE, Files.size(path));
            assertFilled(store.address(100), 100);
            // It grows again from there, with zeros.
            store.extend(2 * CHUNK);
            assertEquals(0, UNSAFE.getLong(store.address(CHUNK + 5)));
        }
    }

    @Test
    void aReadOnlyStoreFollowsTheWriterAndReadsAcrossItsOwnRanges() {
        Path path = dir.resolve("follow.store");
        try (FilePageStore writer = create(path)) {
            writer.extend(2 * CHUNK);
            try (FilePageStore reader = FilePageStore.openReadOnly(path, READER, 8)) {
                assertEquals(2 * CHUNK, reader.pageCount());
                writer.extend(4 * CHUNK);
                // The writer's growth is a range of its own; the reader maps what it added at once.
                long first = 2 * CHUNK - 3;
                for (long p = first; p < first + 6; p++) {
                    fill(writer, p);
                }
                reader.follow();
                assertEquals(4 * CHUNK, reader.pageCount());
                long run = reader.runAddress(first, 6);
                for (int i = 0; i < 6; i++) {
                    assertFilled(run + (long) i * PAGE, first + i);
                }
                assertTrue(reader.readOnly());
            }
        }
    }

    @Test
    void aFileThatIsNotAStoreIsRefusedWithNothingLeftBehind() throws IOException {
        Path path = dir.resolve("notes.txt");
        Files.writeString(path, "plain text");
        assertThrows(CorruptionException.class, () -> FilePageStore.open(path, PAGE, READER, 8));
        assertThrows(CorruptionException.class, () -> FilePageStore.openReadOnly(path, READER, 8));
        assertFalse(Files.exists(LockFile.lockPathOf(path)));
        assertEquals("plain text", Files.readString(path));
    }

    @Test
    void aSecondWriterOfTheFileIsRefused() {
        Path path = dir.resolve("one.store");
        try (FilePageStore store = create(path)) {
            assertTrue(store.durable());
            assertThrows(StoreLockedException.class, () -> FilePageStore.open(path, PAGE, READER, 8));
            // The refusal left the first writer's locks alone.
            store.extend(2 * CHUNK);
            store.sync();
        }
        try (FilePageStore again = FilePageStore.open(path, PAGE, READER, 8)) {
            assertEquals(2 * CHUNK, again.pageCount());
        }
    }
}
