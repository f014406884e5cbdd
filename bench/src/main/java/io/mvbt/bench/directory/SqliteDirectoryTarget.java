// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import io.mvbt.bench.Disk;
import io.mvbt.directory.Dn;
import io.mvbt.directory.Entry;
import io.mvbt.directory.Schema;

/**
 * The same directory in SQLite (sqlite-jdbc), with the tables mvbt's directory has as trees:
 * <pre>
 *   entries  (id INTEGER PRIMARY KEY, parent, rdn, path, dn, attrs BLOB)   master record
 *            UNIQUE (parent, rdn)          children of an entry; a name is taken once
 *            UNIQUE (path)                 lookup by DN; a subtree is a range of paths
 *   av       (attr, value, id) PRIMARY KEY, WITHOUT ROWID   indexed attributes' normalized values
 *            INDEX (id, attr, value)       per-entry probes of ranges and prefixes
 *   presence (attr, id) PRIMARY KEY, WITHOUT ROWID          every attribute an entry has
 * </pre>
 * {@code path} is the normalized DN from the top ({@code dc=com,dc=example,ou=people,...,}), so a
 * subtree is one index range (mvbt counts descendants instead). WAL, synchronous=NORMAL; each
 * searching thread has a connection of its own; a search is one statement, so one read transaction.
 */
final class SqliteDirectoryTarget implements DirectoryTarget {
    private static final int LOAD_BATCH = 10_000;
    private static final long CACHE_KIB = 256 * 1024;
    private static final long MMAP_BYTES = 16L << 30;
    private static final int SUFFIX_SIZE = Dn.parse(DirectoryData.SUFFIX).size();

    private final Path dir;
    private final String url;
    private final Schema schema = DirectoryData.schema();
    private final Connection writer;
    private final PreparedStatement idByPath;
    private final PreparedStatement hasChild;
    private final PreparedStatement record;
    private final PreparedStatement insertEntry;
    private final PreparedStatement insertValue;
    private final PreparedStatement insertPresence;
    private final PreparedStatement deleteEntry;
    private final PreparedStatement deleteValue;
    private final PreparedStatement deletePresence;
    private final Map<String, SqlSearchPlanner.SqlQuery> prepared = new LinkedHashMap<>();
    private final List<Connection> readers = new ArrayList<>();
    private long nextId = 1;

    SqliteDirectoryTarget(Path dir) {
        this.dir = dir;
        this.url = "jdbc:sqlite:" + dir.resolve("directory.sqlite");
        try {
            writer = connect();
            try (Statement s = writer.createStatement()) {
                s.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, rdn TEXT NOT NULL,"
                        + " path TEXT NOT NULL, dn TEXT NOT NULL, attrs BLOB NOT NULL)");
                s.execute("CREATE UNIQUE INDEX entries_parent ON entries (parent, rdn)");
                s.execute("CREATE UNIQUE INDEX entries_path ON entries (path)");
                s.execute("CREATE TABLE av (attr TEXT NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL,"
                        + " PRIMARY KEY (attr, value, id)) WITHOUT ROWID");
                s.execute("CREATE INDEX av_entry ON av (id, attr, value)");
                s.execute("CREATE TABLE presence (attr TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (attr, id))"
                        + " WITHOUT ROWID");
            }
            idByPath = writer.prepareStatement("SELECT id FROM entries WHERE path = ?");
            hasChild = writer.prepareStatement("SELECT 1 FROM entries WHERE parent = ? LIMIT 1");
            record = writer.prepareStatement("SELECT attrs FROM entries WHERE id = ?");
            insertEntry = writer.prepareStatement(
                    "INSERT INTO entries (id, parent, rdn, path, dn, attrs) VALUES (?, ?, ?, ?, ?, ?)");
            insertValue = writer.prepareStatement("INSERT INTO av (attr, value, id) VALUES (?, ?, ?)");
            insertPresence = writer.prepareStatement("INSERT INTO presence (attr, id) VALUES (?, ?)");
            deleteEntry = writer.prepareStatement("DELETE FROM entries WHERE id = ?");
            deleteValue = writer.prepareStatement("DELETE FROM av WHERE attr = ? AND value = ? AND id = ?");
            deletePresence = writer.prepareStatement("DELETE FROM presence WHERE attr = ? AND id = ?");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot set up SQLite in " + dir, e);
        }
    }

    private Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=NORMAL");
            s.execute("PRAGMA cache_size=-" + CACHE_KIB);
            s.execute("PRAGMA mmap_size=" + MMAP_BYTES);
            s.execute("PRAGMA temp_store=MEMORY");
        }
        return c;
    }

    @Override
    public String id() {
        return "sqlite";
    }

    @Override
    public String settings() {
        return "sqlite-jdbc, journal_mode=WAL, synchronous=NORMAL, cache_size " + (CACHE_KIB >> 10)
                + " MiB per connection, mmap_size " + (MMAP_BYTES >> 30) + " GiB, temp_store=MEMORY, ANALYZE after"
                + " the load; load: " + LOAD_BATCH + " entries per commit";
    }

    @Override
    public void load(DirectoryData data, BiConsumer<Long, Entry> progress) {
        long[] n = {0};
        try {
            writer.setAutoCommit(false);
            data.forEach(e -> {
                insert(e);
                if (++n[0] % LOAD_BATCH == 0) {
                    commit();
                }
                progress.accept(n[0], e);
            });
            commit();
            writer.setAutoCommit(true);
            try (Statement s = writer.createStatement()) {
                s.execute("ANALYZE");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void commit() {
        try {
            writer.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long idOf(Dn dn) throws SQLException {
        idByPath.setString(1, SqlSearchPlanner.path(dn, schema));
        try (ResultSet rs = idByPath.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private void insert(Entry entry) {
        try {
            Dn dn = entry.dn();
            long parent = 0;
            if (dn.size() > SUFFIX_SIZE) {
                parent = idOf(dn.parent());
                if (parent == 0) {
                    throw new IllegalStateException("parent of " + dn + " does not exist");
                }
            }
            long id = nextId++;
            insertEntry.setLong(1, id);
            insertEntry.setLong(2, parent);
            insertEntry.setString(3, dn.rdn().normalized(schema));
            insertEntry.setString(4, SqlSearchPlanner.path(dn, schema));
            insertEntry.setString(5, dn.toString());
            insertEntry.setBytes(6, AttributeBlob.encode(entry.attributes()));
            insertEntry.executeUpdate();
            for (Map.Entry<String, List<String>> a : entry.attributes().entrySet()) {
                insertPresence.setString(1, a.getKey());
                insertPresence.setLong(2, id);
                insertPresence.executeUpdate();
                if (schema.isIndexed(a.getKey())) {
                    for (String v : a.getValue()) {
                        insertValue.setString(1, a.getKey());
                        insertValue.setString(2, schema.normalize(a.getKey(), v));
                        insertValue.setLong(3, id);
                        insertValue.executeUpdate();
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot add " + entry.dn(), e);
        }
    }

    @Override
    public void add(Entry entry) {
        try {
            writer.setAutoCommit(false);
            insert(entry);
            writer.commit();
            writer.setAutoCommit(true);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void delete(Dn dn) {
        try {
            writer.setAutoCommit(false);
            long id = idOf(dn);
            if (id == 0) {
                throw new IllegalStateException(dn + " does not exist");
            }
            hasChild.setLong(1, id);
            try (ResultSet rs = hasChild.executeQuery()) {
                if (rs.next()) {
                    throw new IllegalStateException(dn + " has children");
                }
            }
            record.setLong(1, id);
            Map<String, List<String>> attributes;
            try (ResultSet rs = record.executeQuery()) {
                rs.next();
                attributes = AttributeBlob.decode(rs.getBytes(1));
            }
            for (Map.Entry<String, List<String>> a : attributes.entrySet()) {
                deletePresence.setString(1, a.getKey());
                deletePresence.setLong(2, id);
                deletePresence.executeUpdate();
                if (schema.isIndexed(a.getKey())) {
                    for (String v : a.getValue()) {
                        deleteValue.setString(1, a.getKey());
                        deleteValue.setString(2, schema.normalize(a.getKey(), v));
                        deleteValue.setLong(3, id);
                        deleteValue.executeUpdate();
                    }
                }
            }
            deleteEntry.setLong(1, id);
            deleteEntry.executeUpdate();
            writer.commit();
            writer.setAutoCommit(true);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The statement of {@code s}, planned once (on the writer's connection, before any timing). */
    private synchronized SqlSearchPlanner.SqlQuery query(DirectorySearch s) {
        return prepared.computeIfAbsent(s.name(), name -> {
            try {
                return new SqlSearchPlanner(writer, schema).plan(s);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Override
    public Searcher searcher(List<DirectorySearch> searches) {
        try {
            Connection c = connect();
            synchronized (this) {
                readers.add(c);
            }
            List<PreparedStatement> statements = new ArrayList<>();
            for (DirectorySearch s : searches) {
                SqlSearchPlanner.SqlQuery q = query(s);
                PreparedStatement ps = c.prepareStatement(q.sql());
                q.bind(ps);
                statements.add(ps);
            }
            return new Searcher() {
                @Override
                public long search(int index, BiConsumer<String, Map<String, List<String>>> sink) {
                    long n = 0;
                    try (ResultSet rs = statements.get(index).executeQuery()) {
                        while (rs.next()) {
                            String dn = rs.getString(1);
                            Map<String, List<String>> attributes = AttributeBlob.decode(rs.getBytes(2));
                            n++;
                            if (sink != null) {
                                sink.accept(Dn.parse(dn).normalized(schema), attributes);
                            }
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                    return n;
                }

                @Override
                public void close() {
                    try {
                        c.close();
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }
            };
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String plan(DirectorySearch s) {
        SqlSearchPlanner.SqlQuery q = query(s);
        StringBuilder out = new StringBuilder(q.sql()).append("\n  -- parameters ").append(q.params()).append('\n');
        try (PreparedStatement ps = writer.prepareStatement("EXPLAIN QUERY PLAN " + q.sql())) {
            q.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                Map<Integer, Integer> depth = new java.util.HashMap<>();
                while (rs.next()) {
                    int d = depth.getOrDefault(rs.getInt(2), -1) + 1;
                    depth.put(rs.getInt(1), d);
                    out.append("  ".repeat(d + 1)).append(rs.getString(4)).append('\n');
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return out.toString();
    }

    @Override
    public long bytesOnDisk() {
        return Disk.size(dir);
    }

    @Override
    public void close() {
        try {
            for (Connection c : readers) {
                if (!c.isClosed()) {
                    c.close();
                }
            }
            writer.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
