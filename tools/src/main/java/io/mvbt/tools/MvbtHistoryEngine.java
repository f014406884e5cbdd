// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BiConsumer;

import io.mvbt.history.HistoryEntry;
import io.mvbt.history.HistoryReader;
import io.mvbt.history.HistoryTable;
import io.mvbt.history.StorageToken;

/**
 * The mvbt history table under the bench, in a file of its own as {@link HistoryTable#open(Path)}
 * opens it (NORMAL durability, a redo log): one commit per write; reads after
 * the reopen go through one reader (one snapshot), as an INN reader process holds its handle.
 */
final class MvbtHistoryEngine implements HistoryBenchEngine {
    private final Path file;
    private HistoryTable table;
    private HistoryReader reader;

    MvbtHistoryEngine(Path dir) {
        this.file = dir.resolve("history.mvbt");
        this.table = HistoryTable.open(file, StoreFiles.historyOptions());
    }

    @Override
    public String name() {
        return "mvbt";
    }

    @Override
    public boolean write(byte[] hash, long arrived, long posted, long expires, byte[] token) {
        return table.write(hash, arrived, posted, expires, StorageToken.of(token));
    }

    @Override
    public void sync() {
        table.sync();
    }

    @Override
    public void reopenReadOnly() {
        table.close();
        // Opened for writing, and nothing writes: a read-only table builds no presence filter.
        table = HistoryTable.open(file, StoreFiles.historyOptions());
        reader = table.reader();
    }

    /** The table for writing again, after the read-only phases (their reader is closed). */
    HistoryTable writable() {
        if (reader != null) {
            reader.close();
            reader = null;
        }
        return table;
    }

    @Override
    public boolean check(byte[] hash) {
        return reader != null ? reader.check(hash) : table.check(hash);
    }

    @Override
    public byte[] lookupToken(byte[] hash) {
        HistoryEntry e = reader != null ? reader.lookup(hash) : table.lookup(hash);
        return e == null ? null : e.token().bytes();
    }

    @Override
    public long walk(BiConsumer<byte[], byte[]> visitor) {
        return reader.walk(e -> {
            visitor.accept(e.hash(), e.isArticle() ? e.token().bytes() : null);
            return true;
        });
    }

    @Override
    public long footprint() {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (reader != null) {
            reader.close();
            reader = null;
        }
        table.close();
    }
}
