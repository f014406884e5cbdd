// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.bench.Disk;
import io.mvbt.bench.KvStore;
import io.mvbt.bench.SyncMode;

/**
 * SQLite (sqlite-jdbc) as INN's hissqlite uses it: a WITHOUT ROWID table with a BLOB primary key
 * (compared with memcmp), WAL journal. Each reading thread has a connection of its own.
 */
public final class SqlitePeer implements KvStore {
    private final Path dir;
    private final String url;
    private final SyncMode mode;
    private final Connection writer;
    private final PreparedStatement upsert;
    private final PreparedStatement deleteRange;
    private final ThreadLocal<ReadConnection> readers = new ThreadLocal<>();
    private final List<ReadConnection> allReaders = new CopyOnWriteArrayList<>();

    public SqlitePeer(Path dir, SyncMode mode) {
        this.dir = dir;
        this.mode = mode;
        this.url = "jdbc:sqlite:" + dir.resolve("sqlite.db");
        try {
            writer = connect();
            try (Statement s = writer.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID");
            }
            upsert = writer.prepareStatement("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)");
            deleteRange = writer.prepareStatement("DELETE FROM kv WHERE k >= ? AND k < ?");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open SQLite in " + dir, e);
        }
    }

    public static String settings(SyncMode mode) {
        return "journal_mode=WAL, synchronous=" + (mode == SyncMode.SYNC ? "FULL" : "NORMAL")
                + ", WITHOUT ROWID, BLOB keys (memcmp), cache_size 64 MiB";
    }

    private Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=" + (mode == SyncMode.SYNC ? "FULL" : "NORMAL"));
            s.execute("PRAGMA cache_size=-65536");
        }
        return c;
    }

    @Override
    public void put(byte[] k, byte[] v) {
        try {
            upsert.setBytes(1, k);
            upsert.setBytes(2, v);
            upsert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Batch batch() {
        try {
            writer.setAutoCommit(false);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return new Batch() {
            @Override
            public void put(byte[] k, byte[] v) {
                SqlitePeer.this.put(k, v);
            }

            @Override
            public void commit() {
                try {
                    writer.commit();
                    writer.setAutoCommit(true);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    /** A connection for one reading thread, kept in a read transaction while a reader is open. */
    private final class ReadConnection {
        final Connection connection;
        final PreparedStatement get;
        final PreparedStatement forward;
        final PreparedStatement backward;
        final PreparedStatement from;

        ReadConnection() throws SQLException {
            connection = connect();
            connection.setAutoCommit(false);
            get = connection.prepareStatement("SELECT v FROM kv WHERE k = ?");
            forward = connection.prepareStatement("SELECT k, v FROM kv ORDER BY k");
            backward = connection.prepareStatement("SELECT k, v FROM kv ORDER BY k DESC");
            from = connection.prepareStatement("SELECT k, v FROM kv WHERE k >= ? ORDER BY k");
        }
    }

    private ReadConnection readConnection() {
        ReadConnection rc = readers.get();
        if (rc == null) {
            try {
                rc = new ReadConnection();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            readers.set(rc);
            allReaders.add(rc);
        }
        return rc;
    }

    @Override
    public Reader reader() {
        ReadConnection rc = readConnection();
        return new Reader() {
            @Override
            public boolean get(byte[] k, UnsafeBuffer out) {
                try {
                    rc.get.setBytes(1, k);
                    try (ResultSet rs = rc.get.executeQuery()) {
                        if (!rs.next()) {
                            return false;
                        }
                        out.wrap(rs.getBytes(1));
                        return true;
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public Scan scan() {
                return new SqliteScan(rc);
            }

            @Override
            public void close() {
                try {
                    // Ends the read transaction: the next read sees the newest commit.
                    rc.connection.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    /** A result set read in one direction; each positioning runs a new query. */
    private static final class SqliteScan implements Scan {
        private final ReadConnection rc;
        private final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
        private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
        private ResultSet rs;

        SqliteScan(ReadConnection rc) {
            this.rc = rc;
        }

        private boolean run(PreparedStatement query, byte[] from) {
            try {
                closeResult();
                if (from != null) {
                    query.setBytes(1, from);
                }
                rs = query.executeQuery();
                return advance();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private boolean advance() {
            try {
                if (rs == null || !rs.next()) {
                    return false;
                }
                key.wrap(rs.getBytes(1));
                value.wrap(rs.getBytes(2));
                return true;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private void closeResult() throws SQLException {
            if (rs != null) {
                rs.close();
                rs = null;
            }
        }

        @Override
        public boolean first() {
            return run(rc.forward, null);
        }

        @Override
        public boolean last() {
            return run(rc.backward, null);
        }

        @Override
        public boolean seek(byte[] k) {
            return run(rc.from, k);
        }

        @Override
        public boolean next() {
            return advance();
        }

        @Override
        public boolean prev() {
            return advance();
        }

        @Override
        public DirectBuffer key() {
            return key;
        }

        @Override
        public DirectBuffer value() {
            return value;
        }

        @Override
        public void close() {
            try {
                closeResult();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public long deleteRange(byte[] from, byte[] to) {
        try {
            deleteRange.setBytes(1, from);
            deleteRange.setBytes(2, to);
            return deleteRange.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String deleteRangeMethod() {
        return "DELETE FROM kv WHERE k >= ? AND k < ?";
    }

    @Override
    public void sync() {
        try (Statement s = writer.createStatement()) {
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long bytesOnDisk() {
        return Disk.size(dir);
    }

    @Override
    public void close() {
        try {
            for (ReadConnection rc : allReaders) {
                rc.connection.rollback();
                rc.connection.close();
            }
            upsert.close();
            deleteRange.close();
            writer.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
