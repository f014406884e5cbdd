// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;
import io.mvbt.StorageException;
import io.mvbt.StoreLockedException;
import io.mvbt.WriterByAnotherNameException;
import io.mvbt.pagestore.local.LockFile;

/**
 * A store file is one store whichever way it is reached: through a symbolic link it has the same
 * lock file; with a meta page of another store in it, it is refused; replaced under a reader table
 * that announces a meta it no longer holds, readers open it instead of waiting for ever; and a
 * snapshot closed after its store leaves the reader table to whoever opened the file since; and a
 * directory is refused before a lock file is made beside it; a second writer that reached it by a
 * hard link, or beside its lock file deleted and made again, is refused, and so is a reader by a
 * hard link while a sole writer writes by the other name.
 */
class FileIdentityTest {
    @TempDir
    Path dir;

    private static void putRound(Store store, int round, int keys) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTreeIfAbsent("t");
            for (int i = 0; i < keys; i++) {
                tx.put(t, ("key-" + i).getBytes(), ("round " + round).getBytes());
            }
            tx.commit();
        }
    }

    /** A store of ten keys at {@code name} in the test's folder, closed. */
    private Path storeOfTen(String name) {
        Path path = dir.resolve(name);
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            putRound(store, 1, 10);
        }
        return path;
    }

    /** Entries of tree "t" that a read-only store of {@code path} sees. */
    private static long countReadOnly(Path path) {
        try (Store reader = Store.openReadOnly(path); Snapshot s = reader.beginRead()) {
            return s.count(reader.tree("t"));
        }
    }

    /** The output of an {@link OpenStoreChild} refused because the store's writer has another name. */
    private static void assertRefusedByName(String child, String says) {
        assertTrue(child.startsWith("WriterByAnotherNameException") && child.contains(says), child);
    }

    @Test
    void aSymbolicLinkLeadsToTheSameLockFile() throws Exception {
        Path path = dir.resolve("s.mvbt");
        Path link = dir.resolve("link.mvbt");
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            putRound(store, 1, 10);
            Files.createSymbolicLink(link, path);
            assertThrows(StoreLockedException.class, () -> Store.open(link, StoreOptions.defaults()));
        }
        assertTrue(Files.notExists(dir.resolve("link.mvbt-lock")));
        try (Store store = Store.open(link, StoreOptions.defaults()); Snapshot s = store.beginRead()) {
            assertEquals(10, s.count(store.tree("t")));
        }
    }

    @Test
    void aSecondWriterByAHardLinkIsRefused() throws Exception {
        Path path = dir.resolve("h.mvbt");
        Path link = dir.resolve("hard.mvbt");
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            putRound(store, 1, 10);
            Files.createLink(link, path);
            // Another lock file, so only the lock on the store file itself can tell.
            StoreLockedException inThisJvm = assertThrows(StoreLockedException.class,
                    () -> Store.open(link, StoreOptions.defaults()));
            assertTrue(inThisJvm.getMessage().contains("another name"), inThisJvm.getMessage());
            String child = ChildJvm.run(OpenStoreChild.class, link.toString());
            assertRefusedByName(child, "another name");
            putRound(store, 2, 10);
        }
        try (Store store = Store.open(link, StoreOptions.defaults()); Snapshot s = store.beginRead()) {
            assertArrayEquals("round 2".getBytes(), s.get(store.tree("t"), "key-3".getBytes()));
        }
    }

    @Test
    void aReadOnlyStoreClosedInTheWritersJvmLeavesTheFileLocked() throws Exception {
        Path path = dir.resolve("r.mvbt");
        Path link = dir.resolve("r-hard.mvbt");
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            putRound(store, 1, 10);
            Files.createLink(link, path);
            // Closing its channel drops every POSIX lock this process holds on the file.
            assertEquals(10, countReadOnly(path));
            String child = ChildJvm.run(OpenStoreChild.class, link.toString());
            assertRefusedByName(child, "another name");
        }
    }

    @Test
    void aReaderByAHardLinkIsRefusedWhileTheWriterWritesByTheOtherName() throws Exception {
        Path path = dir.resolve("u.mvbt");
        Path link = dir.resolve("u-hard.mvbt");
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            putRound(store, 1, 10);
            Files.createLink(link, path);
            StoreLockedException here = assertThrows(StoreLockedException.class, () -> Store.openReadOnly(link));
            assertTrue(here.getMessage().contains("would not see"), here.getMessage());
            String child = ChildJvm.run(OpenStoreChild.class, link.toString(), "read-only");
            assertRefusedByName(child, "would not see");
            // By the writer's name, readers of any process are seen and welcome.
            child = ChildJvm.run(OpenStoreChild.class, path.toString(), "read-only");
            assertTrue(child.startsWith("opened at revision"), child);
            assertEquals(10, countReadOnly(path));
        }
        String child = ChildJvm.run(OpenStoreChild.class, link.toString(), "read-only");
        assertTrue(child.startsWith("opened at revision"), child);
    }

    @Test
    void aSoleWriterWaitsOutAReaderLookingAtTheFile() throws Exception {
        Path path = storeOfTen("w.mvbt");
        // A reader's look holds the byte shared; a slow one (a pause, a loaded host) for a while.
        Process looker = ChildJvm.start(null, FileByteLockChild.class, path.toString(), "shared", "150");
        try {
            ChildJvm.firstLine(looker, "locked");
            try (Store store = Store.open(path, StoreOptions.defaults()); Snapshot s = store.beginRead()) {
                assertEquals(10, s.count(store.tree("t")));
            }
        } finally {
            looker.destroyForcibly().waitFor();
        }
    }

    @Test
    void aReaderIsRefusedBesideAWriterByAnotherNameWhateverItsLockFileStillNames() throws Exception {
        Path path = storeOfTen("k.mvbt");
        Path link = dir.resolve("k-hard.mvbt");
        Files.createLink(link, path);
        Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        try (LockFile lockFile = LockFile.open(path, 16)) {
            // A sole writer killed -9 leaves its pid behind, and a writer's open cut short names itself.
            lockFile.header().putLongVolatile(LockFile.FILE_LOCK_HOLDER, exited.pid());
            lockFile.header().putLongVolatile(LockFile.WRITER_PID, ProcessHandle.current().pid());
            Process writer = ChildJvm.start(null, FileByteLockChild.class, link.toString(), "exclusive", "30000");
            try {
                ChildJvm.firstLine(writer, "locked");
                assertThrows(WriterByAnotherNameException.class, () -> Store.openReadOnly(path));
            } finally {
                writer.destroyForcibly().waitFor();
            }
            assertEquals(10, countReadOnly(path));
        }
    }

    @Test
    void aWriterBesideALockFileMadeAgainIsRefused() throws Exception {
        Path path = dir.resolve("l.mvbt");
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            putRound(store, 1, 10);
            Files.delete(dir.resolve("l.mvbt-lock"));
            String child = ChildJvm.run(OpenStoreChild.class, path.toString());
            assertRefusedByName(child, "another name");
        }
    }

    @Test
    void aSymbolicLinkMadeBeforeItsStoreLeadsToTheStoresLockFile() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Path link = dir.resolve("early.mvbt");
        Files.createSymbolicLink(link, data.resolve("early.mvbt"));
        try (Store store = Store.open(link, StoreOptions.defaults())) {
            putRound(store, 1, 10);
            assertTrue(Files.exists(data.resolve("early.mvbt-lock")), "the lock file is beside the store");
            assertTrue(Files.notExists(dir.resolve("early.mvbt-lock")), "not beside the link");
            // A reader by the store's own name meets the writer's lock file.
            assertEquals(10, countReadOnly(data.resolve("early.mvbt")));
        }
    }

    @Test
    void aDirectoryIsRefusedWithoutALockFileLeftBeside() throws Exception {
        Path path = Files.createDirectory(dir.resolve("d.mvbt"));
        StorageException e = assertThrows(StorageException.class, () -> Store.open(path, StoreOptions.defaults()));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
        assertTrue(Files.notExists(dir.resolve("d.mvbt-lock")), "a lock file was left beside the directory");
    }

    @Test
    void metaPagesOfTwoStoresAreRefusedWithNothingWritten() throws Exception {
        Path path = dir.resolve("s.mvbt");
        Path other = dir.resolve("other.mvbt");
        try (Store store = Store.open(path, StoreOptions.defaults())) {
            putRound(store, 1, 20_000);
        }
        try (Store store = Store.open(other, StoreOptions.defaults())) {
            for (int r = 0; r < 30; r++) {
                putRound(store, r, 3);
            }
        }
        // The other store's newest meta, spliced into every slot but slot 0 of this one.
        byte[] foreign = new byte[4096 * 4];
        try (RandomAccessFile f = new RandomAccessFile(other.toFile(), "r")) {
            f.readFully(foreign);
        }
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw")) {
            f.seek(4096);
            f.write(foreign, 4096, 3 * 4096);
        }
        byte[] before = Files.readAllBytes(path);
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(path, StoreOptions.defaults()));
        assertTrue(e.getMessage().contains("two stores"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(path));
    }

    @Test
    void aReaderOfAFileReplacedUnderItsReaderTableOpensIt() throws Exception {
        Path path = storeOfTen("s.mvbt");
        Path backup = dir.resolve("backup.mvbt");
        Files.copy(path, backup);
        // A reader keeps the reader table open while a writer announces newer metas and leaves.
        try (Store first = Store.openReadOnly(path)) {
            try (Store store = Store.open(path, StoreOptions.defaults())) {
                for (int r = 2; r < 8; r++) {
                    putRound(store, r, 10);
                }
            }
            Files.copy(backup, path, StandardCopyOption.REPLACE_EXISTING);
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                try (Store reader = Store.openReadOnly(path); Snapshot s = reader.beginRead()) {
                    assertEquals("round 1", new String(s.get(reader.tree("t"), "key-3".getBytes())));
                }
            });
        }
    }

    @Test
    void aSnapshotClosedAfterItsStoreLeavesTheNextStoresReadersAlone() throws Exception {
        Path path = dir.resolve("s.mvbt");
        Store old = Store.open(path, StoreOptions.defaults());
        putRound(old, 1, 10);
        Snapshot late = old.beginRead();
        old.close();
        try (Store store = Store.open(path, StoreOptions.defaults()); Snapshot held = store.beginRead()) {
            late.close();
            assertEquals(1, store.readers().size(), "the late close cleared the new store's reader");
            assertEquals(held.revision(), store.readers().get(0).revision());
        }
    }
}
