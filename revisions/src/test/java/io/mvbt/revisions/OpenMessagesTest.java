// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;
import io.mvbt.NotAStoreException;
import io.mvbt.StorageException;
import io.mvbt.pagestore.PageStore;

/** What a failing open says: what happened, where, and what to do. */
class OpenMessagesTest {
    @TempDir
    Path dir;

    @Test
    void aFileThatIsNoStoreIsNamedAndLeftAlone() throws IOException {
        Path notes = dir.resolve("notes.txt");
        byte[] text = "these are notes, not a store\n".repeat(80).getBytes(StandardCharsets.US_ASCII);
        Files.write(notes, text);
        for (Runnable open : new Runnable[] {() -> Store.open(notes).close(), () -> Store.openReadOnly(notes).close()}) {
            NotAStoreException e = assertThrows(NotAStoreException.class, open::run);
            assertTrue(e.getMessage().startsWith(notes + " is not an mvbt store"), e.getMessage());
            assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
            assertEquals(notes.toString(), e.where());
        }
        assertArrayEquals(text, Files.readAllBytes(notes));
        assertFalse(Files.exists(dir.resolve("notes.txt-lock")), "no lock file is left behind");
    }

    @Test
    void aFileTooShortForTheMagicCannotBeToldFromAStoreCutShort() throws IOException {
        Path path = dir.resolve("store");
        createStore(path);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            ch.truncate(MetaPage.MAGIC_OFFSET + 7);
        }
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(path).close());
        assertTrue(e.getMessage().contains("too few for a meta page"), e.getMessage());
    }

    @Test
    void aStoreWhoseMetaPagesAreDamagedIsCalledDamagedNotAStranger() throws IOException {
        Path path = dir.resolve("store");
        createStore(path);
        // Every meta keeps its magic and page size but fails its checksum.
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            for (int slot = 0; slot < PageStore.META_SLOTS; slot++) {
                ch.write(ByteBuffer.wrap(new byte[] {0x55, 0x55, 0x55, 0x55}), (long) slot * 4096 + MetaPage.CHECKSUM);
            }
        }
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(path).close());
        assertTrue(e.getMessage().contains("every meta page of " + path + " is damaged"), e.getMessage());
    }

    @Test
    void metaPagesWithTheMagicButNoPageSizeAreDamage() throws IOException {
        Path path = dir.resolve("store");
        createStore(path);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            for (int slot = 0; slot < PageStore.META_SLOTS; slot++) {
                ByteBuffer size = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 12345);
                ch.write(size, (long) slot * 4096 + MetaPage.PAGE_SIZE);
            }
        }
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(path).close());
        assertTrue(e.getMessage().contains("every meta page of store file " + path + " is damaged"), e.getMessage());
    }

    @Test
    void aMissingDirectoryIsNamed() {
        Path missing = dir.resolve("no-such-directory");
        StorageException e = assertThrows(StorageException.class, () -> Store.open(missing.resolve("store")).close());
        assertTrue(e.getMessage().contains("directory " + missing + " does not exist (create it first)"), e.getMessage());
        assertFalse(e.getMessage().contains("redo"), e.getMessage());
        assertFalse(Files.exists(missing));
    }

    @Test
    void aPageSizeOtherThanTheFilesIsRefused() {
        Path path = dir.resolve("store");
        createStore(path);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Store.open(path, StoreOptions.defaults().pageSize(65536)).close());
        assertTrue(e.getMessage().contains("has 4096-byte pages, but the options ask for 65536"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Store.openReadOnly(path, StoreOptions.defaults().pageSize(8192)).close());
        // The same page size, or none chosen, opens it.
        try (Store store = Store.open(path, StoreOptions.defaults().pageSize(4096))) {
            assertEquals(4096, store.pageSize());
        }
        Path large = dir.resolve("large");
        Store.open(large, StoreOptions.defaults().pageSize(16384)).close();
        try (Store store = Store.open(large)) {
            assertEquals(16384, store.pageSize(), "an existing store opens with its own page size");
        }
    }

    @Test
    void theDefaultsJavadocListsEveryOption() throws IOException {
        String source = Files.readString(Path.of("src/main/java/io/mvbt/revisions/StoreOptions.java"));
        int table = source.indexOf("<caption>Defaults</caption>");
        String defaults = source.substring(table, source.indexOf("</table>", table));
        Matcher setter = Pattern.compile("public StoreOptions (\\w+)\\((\\w+)").matcher(source);
        int setters = 0;
        while (setter.find()) {
            setters++;
            assertTrue(defaults.contains("{@link #" + setter.group(1) + "(" + setter.group(2) + ")}"),
                    "the defaults table lists " + setter.group(1));
        }
        assertTrue(setters >= 14, "found the setters");
    }

    private static void createStore(Path path) {
        try (Store store = Store.open(path)) {
            store.update(tx -> tx.createTree("t"));
        }
    }
}
