// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The steps by which backup and restore make what they write survive a power cut: sync a file,
 * rename, sync a directory, delete. Their order is the whole of that promise, so they go through
 * this one seam: {@link #DISK} does them, and BackupPowerCutTest puts a recorder here that stops
 * at every step to take the states a power cut could leave.
 */
interface DurableFiles {
    DurableFiles DISK = new DiskFiles();

    /** fsync: {@code file}'s data and size, written through {@code channel}, reach the disk. */
    void force(FileChannel channel, Path file) throws IOException;

    /** Renames atomically (over {@code to} if {@code replace}); durable only once the directory is synced. */
    void move(Path from, Path to, boolean replace) throws IOException;

    /** Makes the directory's entries durable: a create, rename or delete in it is data too. */
    void syncDirectory(Path dir) throws IOException;

    /** Removes {@code file} if it exists. */
    void delete(Path file) throws IOException;

    /** fsync of a file written by someone else (the store layer). */
    default void sync(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            force(channel, file);
        }
    }

    /** Creates {@code dir} and its missing parents, each made durable in its parent before the next. */
    default void createDirectories(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return;
        }
        createDirectories(absolute.getParent());
        Files.createDirectory(absolute);
        syncDirectory(absolute.getParent());
    }
}
