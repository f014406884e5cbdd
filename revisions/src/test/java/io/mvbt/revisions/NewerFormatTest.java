// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.UnsupportedFormatException;

/**
 * A store that a newer release wrote in a newer format is refused as a whole, with nothing written:
 * falling back to an older meta of a known format would open an old revision whose free pages the
 * newer release may have filled since. A damaged meta still falls back.
 */
class NewerFormatTest {
    private static final int PAGE = 4096;

    @TempDir
    Path dir;

    @Test
    void anIntactMetaOfANewerFormatRefusesTheStoreAndChangesNothing() throws IOException {
        Path file = storeOfThreeRevisions();
        int newest = newestSlot(file);
        rewriteMeta(file, newest, MetaPage.FORMAT_VERSION + 1, true);
        byte[] before = Files.readAllBytes(file);

        UnsupportedFormatException e = assertThrows(UnsupportedFormatException.class,
                () -> Store.open(file, StoreOptions.defaults()).close());
        assertTrue(e.getMessage().contains("format " + (MetaPage.FORMAT_VERSION + 1)), e.getMessage());
        assertThrows(UnsupportedFormatException.class,
                () -> Store.openReadOnly(file).close());
        assertArrayEquals(before, Files.readAllBytes(file), "a refused open wrote to the file");
    }

    /** Pages larger than this release knows (a newer release's store) are a newer format, not damage. */
    @Test
    void pagesLargerThanThisReleaseKnowsAreANewerFormat() throws IOException {
        Path file = dir.resolve("big-pages.mvbt");
        ByteBuffer head = ByteBuffer.allocate(2 << 20).order(ByteOrder.LITTLE_ENDIAN);
        head.putLong(MetaPage.MAGIC_OFFSET, MetaPage.MAGIC);
        head.putInt(MetaPage.PAGE_SIZE, 1 << 17);
        head.put(1 << 18, (byte) 7);
        Files.write(file, head.array());
        byte[] before = Files.readAllBytes(file);
        UnsupportedFormatException e = assertThrows(UnsupportedFormatException.class,
                () -> Store.open(file, StoreOptions.defaults()).close());
        assertTrue(e.getMessage().contains("131072-byte pages"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file), "a refused open wrote to the file");
    }

    @Test
    void aDamagedMetaOfANewerFormatIsDamageAndTheStoreOpensAtAnotherMeta() throws IOException {
        Path file = storeOfThreeRevisions();
        rewriteMeta(file, newestSlot(file), MetaPage.FORMAT_VERSION + 1, false);

        try (Store store = Store.open(file, StoreOptions.defaults()); Snapshot s = store.beginRead()) {
            assertTrue(s.contains(store.tree("t"), new byte[] {0}));
        }
    }

    private Path storeOfThreeRevisions() {
        Path file = dir.resolve("s.mvbt");
        try (Store store = Store.open(file, StoreOptions.defaults())) {
            for (int i = 0; i < 3; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(tx.createTreeIfAbsent("t"), new byte[] {(byte) i}, new byte[] {1});
                    tx.commit();
                }
            }
        }
        return file;
    }

    private static int newestSlot(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            int newest = -1;
            long best = -1;
            for (int slot = 0; slot < 4; slot++) {
                ByteBuffer meta = read(ch, slot);
                if (meta.getLong(MetaPage.MAGIC_OFFSET) == MetaPage.MAGIC && meta.getLong(MetaPage.SEQUENCE) > best) {
                    best = meta.getLong(MetaPage.SEQUENCE);
                    newest = slot;
                }
            }
            assertTrue(newest >= 0, "no meta written");
            return newest;
        }
    }

    /** Sets the format of a slot's meta, with its checksum made to match (intact) or not (damaged). */
    private static void rewriteMeta(Path file, int slot, int format, boolean intact) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer meta = read(ch, slot);
            meta.putInt(MetaPage.FORMAT, format);
            int length = meta.getInt(MetaPage.LENGTH);
            CRC32C crc = new CRC32C();
            crc.update(meta.duplicate().position(4).limit(length));
            meta.putInt(MetaPage.CHECKSUM, (int) crc.getValue() + (intact ? 0 : 1));
            assertEquals(PAGE, ch.write(meta.clear(), (long) slot * PAGE));
        }
    }

    private static ByteBuffer read(FileChannel ch, int slot) throws IOException {
        ByteBuffer meta = ByteBuffer.allocate(PAGE).order(ByteOrder.LITTLE_ENDIAN);
        ch.read(meta, (long) slot * PAGE);
        return meta.flip();
    }
}
