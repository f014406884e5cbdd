// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.LongConsumer;

import io.mvbt.pagestore.local.FilePageStore;

/**
 * A consistent, compact copy of one revision into a new store file: the hot backup. It reads a
 * snapshot, so the writer goes on meanwhile, and rebuilds every tree with the sorted bulk loader,
 * so the copy has full pages and no free space. It is written under a temporary name and renamed
 * into place once synced: the target name never holds a partial copy.
 */
final class StoreCopy {
    private StoreCopy() {
    }

    static void copy(Snapshot from, Path target, StoreOptions options, LongConsumer entriesCopied) {
        if (Files.exists(target)) {
            throw new UncheckedIOException(new FileAlreadyExistsException(target.toString(), null,
                    "the copy never overwrites a file"));
        }
        Path partial = target.resolveSibling(target.getFileName() + ".partial");
        try {
            deleteStore(partial);
            long copied = 0;
            try (Store to = Store.open(partial, options.durability(Durability.NORMAL))) {
                for (String name : from.treeNames()) {
                    Tree source = from.store.tree(name);
                    try (WriteTxn tx = to.beginWrite(); Cursor c = from.cursor(source)) {
                        Tree tree = tx.createTree(name);
                        try (BulkLoad load = tx.bulkLoad(tree)) {
                            for (boolean more = c.first(); more; more = c.next()) {
                                load.add(c.key(), c.value());
                                if ((++copied & 0xFFFF) == 0) {
                                    entriesCopied.accept(copied);
                                }
                            }
                        }
                        tx.commit();
                    }
                }
                to.sync();
            }
            entriesCopied.accept(copied);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            Files.deleteIfExists(FilePageStore.lockPathOf(partial));
            syncDirectory(target.toAbsolutePath().getParent());
        } catch (IOException e) {
            deleteQuietly(partial);
            throw new UncheckedIOException("copy to " + target + " failed", e);
        } catch (RuntimeException | Error e) {
            deleteQuietly(partial);
            throw e;
        }
    }

    private static void deleteStore(Path store) throws IOException {
        Files.deleteIfExists(store);
        Files.deleteIfExists(FilePageStore.lockPathOf(store));
    }

    private static void deleteQuietly(Path store) {
        try {
            deleteStore(store);
        } catch (IOException ignored) {
            // The copy already failed; that failure is the one to report.
        }
    }

    /** Makes the rename durable: the directory entry is data too. */
    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
