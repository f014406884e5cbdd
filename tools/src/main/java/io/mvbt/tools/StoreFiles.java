// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Files;
import java.nio.file.Path;

import io.mvbt.CorruptionException;
import io.mvbt.NotAStoreException;
import io.mvbt.StorageException;
import io.mvbt.StoreLockedException;
import io.mvbt.WriterByAnotherNameException;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;

/** Opening the stores that commands work on. */
final class StoreFiles {
    /** The shadow directory of the stores' writer ({@code --shadow-dir}), or null. */
    static Path shadowDirectory;

    private StoreFiles() {
    }

    /** Options for opening a history table's store for writing: the table's own, with the shadow directory. */
    static StoreOptions historyOptions() {
        return io.mvbt.history.HistoryTable.storeOptions().shadowDirectory(shadowDirectory);
    }

    /** Options for opening the store a command works on. */
    static StoreOptions options() {
        return StoreOptions.defaults().shadowDirectory(shadowDirectory);
    }

    /**
     * Opens an existing store; a missing file is an error, never a new empty store. If another
     * process has it open for writing, opens it read-only beside that writer (and says so). If its
     * newest revisions do not verify, opens it read-only at the newest that does, so that the
     * others are kept (an open for writing would wipe them), and says so.
     */
    static Store openExisting(Path path) {
        Store look = openReadOnly(path);
        if (!look.droppedRevisions().isEmpty()) {
            System.err.println("note: the newest revisions of " + path + " do not verify; reading revision "
                    + look.revision() + " read-only; " + DROPPED_ADVICE);
            return look;
        }
        look.close();
        try {
            // A command that looks at a store leaves its pages where they are.
            return Store.open(path, options().durability(Durability.NORMAL).compactAtClose(false));
        } catch (WriterByAnotherNameException e) {
            // Its writer would not see a reader by this name either.
            throw e;
        } catch (StoreLockedException e) {
            Store readOnly = openReadOnly(path);
            System.err.println("note: " + e.getMessage() + "; reading it read-only beside its writer");
            return readOnly;
        }
    }

    /**
     * Opens an existing store read-only. A file in which no store is found (no meta page verifies:
     * not an mvbt store, or one whose every meta page is damaged) cannot be opened; damage found
     * once it is open is the store's ({@link ExitCodes#DAMAGED}).
     */
    static Store openReadOnly(Path path) {
        requireStore(path, null);
        try {
            return Store.openReadOnly(path, options());
        } catch (NotAStoreException | CorruptionException e) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, "cannot open " + path + ": " + e.getMessage());
        } catch (StorageException e) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, e.getMessage());
        }
    }

    /** What to do about revisions that recovery would drop. */
    static final String DROPPED_ADVICE = "opening the store for writing drops them for good; mvbt recover STORE"
            + " TARGET copies the newest revision that verifies into a new store and leaves this one as it is";

    /**
     * Refuses a missing or empty file: {@link Store#open} would make a new store of it, and a
     * command that reads one must not (a mistyped name, a file truncated to nothing).
     */
    static void requireStore(Path path, String hint) {
        String suffix = hint == null ? "" : " (" + hint + ")";
        if (!Files.isRegularFile(path)) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, "no store at " + path + suffix);
        }
        try {
            if (Files.size(path) == 0) {
                throw new CommandException(ExitCodes.CANNOT_OPEN, "no store at " + path + ": the file is empty" + suffix);
            }
        } catch (java.io.IOException e) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, "cannot read " + path + ": " + e.getMessage());
        }
    }

    /**
     * Fails if writing to {@code out} failed: a {@link java.io.PrintStream} such as standard output
     * swallows its errors (a full disk behind {@code > file}), which would otherwise end in status 0.
     */
    static void requireWritten(java.io.PrintStream out) {
        if (out.checkError()) {
            throw new CommandException("cannot write to standard output (disk full, or the reader went away)");
        }
    }

    /** Entries in every tree of {@code snapshot}, for progress bars. */
    static long totalEntries(Store store, Snapshot snapshot) {
        long total = 0;
        for (String name : snapshot.treeNames()) {
            total += snapshot.count(store.tree(name));
        }
        return total;
    }

    /** Refuses to write over anything. */
    static void requireAbsent(Path path) {
        if (Files.exists(path)) {
            throw new CommandException(path + " exists; choose a new name");
        }
    }
}
