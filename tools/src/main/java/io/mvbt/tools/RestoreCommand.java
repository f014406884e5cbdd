// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Rebuilds a store from a backup chain: every link is checked first (identity, checksums, each
 * delta starting where the one before ended), then the full copy is copied to a temporary file
 * beside TARGET, the deltas are applied in order, the result synced and renamed to TARGET. A damaged
 * or missing link stops it before anything is written; TARGET only ever changes by that last rename.
 */
@Command(name = "restore", mixinStandardHelpOptions = true,
        description = "Rebuild a store from the backup chain in DEST: the full copy, then each delta in order, all checked"
                + " before anything is written; the new store appears at TARGET only when complete.")
final class RestoreCommand implements Callable<Integer> {
    /** Changes applied per commit: bounds the restore's memory whatever a delta's size. */
    private static final int BATCH = 100_000;

    @Parameters(index = "0", paramLabel = "DEST", description = "The backup directory.")
    Path dest;

    @Parameters(index = "1", paramLabel = "TARGET", description = "The store file to create.")
    Path target;

    @Option(names = "--to", paramLabel = "REVISION", description = "Restore the revision of this link (default: the"
            + " chain's last).")
    Long to;

    @Option(names = "--force", description = "Replace TARGET if it exists (by a rename once the new store is complete).")
    boolean force;

    /** How the restore's durable steps are done: on the disk, or through a test's recorder. */
    DurableFiles files = DurableFiles.DISK;

    @Override
    public Integer call() {
        long started = System.nanoTime();
        BackupChain chain = new BackupChain(dest, files);
        if (!Files.isDirectory(dest)) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, "no backup chain at " + dest);
        }
        if (Files.exists(target) && !force) {
            throw new CommandException(target + " exists; choose a new name, or pass --force to replace it once the"
                    + " restored store is complete");
        }
        List<Path> links = check(chain, to);
        long revision = links.isEmpty() ? chain.base(chain.identity()).revision()
                : DeltaReader.header(links.get(links.size() - 1)).to();
        Path partial = target.resolveSibling(target.getFileName() + ".restoring");
        long changes = 0;
        try {
            deleteStore(partial);
            Files.copy(chain.full(), partial);
            try (Store s = Store.open(partial, StoreOptions.defaults().durability(Durability.NORMAL))) {
                for (Path link : links) {
                    changes += apply(s, link);
                }
                s.sync();
            }
            files.delete(FilePageStore.lockPathOf(partial));
            // The store syncs what it wrote, but without deltas it wrote nothing and the copied bytes
            // were never synced: the rename could reach the disk before them.
            files.sync(partial);
            files.move(partial, target, force);
            files.syncDirectory(target.toAbsolutePath().getParent());
        } catch (IOException e) {
            deleteQuietly(partial);
            throw new UncheckedIOException("restore to " + target + " failed", e);
        } catch (RuntimeException | Error e) {
            deleteQuietly(partial);
            throw e;
        }
        System.out.printf("restored revision %,d to %s: the full copy and %d %s, %,d changes, in %,d ms%n", revision,
                target, links.size(), links.size() == 1 ? "delta" : "deltas", changes,
                (System.nanoTime() - started) / 1_000_000);
        StoreFiles.requireWritten(System.out);
        return ExitCodes.OK;
    }

    /**
     * Checks the chain up to the link holding revision {@code to} (null: the last) and returns the
     * deltas to apply: the chain's identity, link 0's copy against its length and checksum, and each
     * delta whole, in order, joined to the one before.
     */
    static List<Path> check(BackupChain chain, Long to) {
        BackupChain.Identity id = chain.identity();
        if (id == null) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, "no backup chain at " + chain.dir + " (no '"
                    + BackupChain.CHAIN + "' file)");
        }
        BackupChain.Base base = chain.base(id);
        if (base == null || !Files.exists(chain.full())) {
            throw new CommandException(ExitCodes.DAMAGED, "backup chain " + chain.dir + " lacks its full copy (link 0: "
                    + BackupChain.FULL + " and " + BackupChain.BASE + "); its first backup did not complete");
        }
        try {
            long length = Files.size(chain.full());
            if (length != base.fullLength() || BackupChain.crcOf(chain.full()) != base.fullCrc()) {
                throw new CommandException(ExitCodes.DAMAGED, "backup link " + chain.full() + " is damaged: "
                        + length + " bytes where " + base.fullLength() + " were written, or its checksum does not match");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + chain.full(), e);
        }
        List<Long> revisions = new ArrayList<>(List.of(base.revision()));
        List<Path> out = new ArrayList<>();
        if (to != null && to == base.revision()) {
            return out;
        }
        long previous = base.revision();
        int link = 1;
        for (Path delta : chain.deltas()) {
            DeltaFormat.Header h = DeltaReader.read(delta, DeltaReader.CHECK_ONLY);
            if (h.chainId() != id.chainId() || h.storeId() != id.storeId()) {
                throw new CommandException(ExitCodes.DAMAGED, "backup link " + delta + " belongs to another chain");
            }
            if (h.link() != link || h.from() != previous) {
                throw new CommandException(ExitCodes.DAMAGED, "backup link " + delta + " is link " + h.link() + " from "
                        + "revision " + h.from() + ", but the chain needs link " + link + " from revision " + previous);
            }
            out.add(delta);
            revisions.add(h.to());
            if (to != null && h.to() == to) {
                return out;
            }
            previous = h.to();
            link++;
        }
        if (to != null) {
            throw new CommandException(ExitCodes.NOT_FOUND, "no link of backup chain " + chain.dir + " holds revision "
                    + to + "; its links hold revisions " + revisions);
        }
        return out;
    }

    /** Applies one checked delta; returns the changes it made. */
    private static long apply(Store s, Path delta) {
        long[] applied = {0};
        WriteTxn[] tx = {s.beginWrite()};
        try {
            DeltaReader.read(delta, new DeltaReader.Records() {
                private Tree tree;

                @Override
                public void created(String name) {
                    tree = tx[0].createTree(name);
                }

                @Override
                public void dropped(String name) {
                    tx[0].dropTree(s.tree(name));
                }

                @Override
                public void tree(String name) {
                    tree = s.tree(name);
                }

                @Override
                public void changed(byte[] key, byte[] value) {
                    if (value == null) {
                        tx[0].delete(tree, key);
                    } else {
                        tx[0].put(tree, key, value);
                    }
                    if (++applied[0] % BATCH == 0) {
                        tx[0].commit();
                        tx[0].close();
                        tx[0] = s.beginWrite();
                    }
                }
            });
            tx[0].commit();
        } finally {
            tx[0].close();
        }
        return applied[0];
    }

    private void deleteStore(Path store) throws IOException {
        files.delete(store);
        files.delete(FilePageStore.lockPathOf(store));
    }

    private void deleteQuietly(Path store) {
        try {
            deleteStore(store);
        } catch (IOException ignored) {
            // The restore already failed; that failure is the one to report.
        }
    }
}
