// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.BiConsumer;

/**
 * SQLite configured as INN's hissqlite (history/hissqlite: schema version 1 and its writer
 * statements): one WITHOUT ROWID table clustered on the 16-byte hash, the partial index of
 * remembered entries, WAL, synchronous=NORMAL, page size 4096, a 64 MB cache, one autocommit per
 * write ({@code insert ... on conflict(hash) do nothing}); sync is a WAL checkpoint.
 */
final class SqliteHistoryEngine implements HistoryBenchEngine {
    private final Path file;
    private Connection db;
    private PreparedStatement write;
    private PreparedStatement check;
    private PreparedStatement lookup;

    SqliteHistoryEngine(Path dir) {
        this.file = dir.resolve("history.sqlite");
        try {
            db = DriverManager.getConnection("jdbc:sqlite:" + file);
            try (Statement s = db.createStatement()) {
                s.execute("pragma page_size = 4096");
                s.execute("pragma journal_mode = wal");
                s.execute("pragma synchronous = normal");
                s.execute("pragma busy_timeout = 10000");
                s.execute("pragma foreign_keys = off");
                s.execute("pragma cache_size = -65536");
                s.execute("create table hist (hash blob not null primary key, arrived integer not null,"
                        + " posted integer, expires integer, token blob) without rowid");
                s.execute("create index hist_remember on hist(posted, arrived) where token is null");
                s.execute("create table misc (key text not null primary key, value not null) without rowid");
                s.execute("insert into misc(key, value) values('version', 1)");
            }
            write = db.prepareStatement("insert into hist(hash, arrived, posted, expires, token)"
                    + " values(?, ?, ?, ?, ?) on conflict(hash) do nothing");
            prepareReads();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot set up SQLite at " + file, e);
        }
    }

    private void prepareReads() throws SQLException {
        check = db.prepareStatement("select 1 from hist where hash = ?");
        lookup = db.prepareStatement("select arrived, posted, expires, token from hist where hash = ?");
    }

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public boolean write(byte[] hash, long arrived, long posted, long expires, byte[] token) {
        try {
            write.setBytes(1, hash);
            write.setLong(2, arrived);
            write.setLong(3, posted);
            write.setLong(4, expires);
            write.setBytes(5, token);
            return write.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void sync() {
        try (Statement s = db.createStatement()) {
            s.execute("pragma wal_checkpoint(passive)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void reopenReadOnly() {
        close();
        try {
            org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
            config.setReadOnly(true);
            db = DriverManager.getConnection("jdbc:sqlite:" + file, config.toProperties());
            try (Statement s = db.createStatement()) {
                s.execute("pragma cache_size = -65536");
            }
            prepareReads();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean check(byte[] hash) {
        try {
            check.setBytes(1, hash);
            try (ResultSet r = check.executeQuery()) {
                return r.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public byte[] lookupToken(byte[] hash) {
        try {
            lookup.setBytes(1, hash);
            try (ResultSet r = lookup.executeQuery()) {
                return r.next() ? r.getBytes(4) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long walk(BiConsumer<byte[], byte[]> visitor) {
        long n = 0;
        try (Statement s = db.createStatement();
                ResultSet r = s.executeQuery("select hash, arrived, posted, expires, token from hist")) {
            while (r.next()) {
                visitor.accept(r.getBytes(1), r.getBytes(5));
                n++;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return n;
    }

    @Override
    public long footprint() {
        long bytes = 0;
        for (String suffix : new String[] {"", "-wal", "-shm"}) {
            Path p = Path.of(file + suffix);
            try {
                bytes += Files.exists(p) ? Files.size(p) : 0;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return bytes;
    }

    @Override
    public void close() {
        try {
            if (db != null) {
                db.close();
                db = null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
