// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.mvbt.directory.Dn;
import io.mvbt.directory.Filter;
import io.mvbt.directory.Rdn;
import io.mvbt.directory.Schema;

/**
 * Writes the SQL a search becomes on {@link SqliteDirectoryTarget}'s tables, the way one would by
 * hand: a filter term is a range of the {@code av (attr, value, id)} or {@code presence (attr, id)}
 * primary key; an AND is driven by its smallest term and tests the others per id with indexed
 * {@code EXISTS} probes (a NOT as {@code NOT EXISTS}); an OR is a {@code UNION ALL} (the final
 * {@code id IN (...)} removes duplicates). The whole search is driven by the scope (the entry by its
 * path, the children by the parent index, a subtree by the path range) when the scope is smaller
 * than the filter's estimate, else by the filter with the scope as a plain test. Estimates are
 * exact counts, taken once when the search is prepared (a database plans a prepared statement
 * once), so SQLite's side never pays for them while it is measured.
 *
 * <p>Only indexed attributes (and presence of any attribute) can be searched: SQLite keeps no other
 * values outside the entries' BLOBs.
 */
final class SqlSearchPlanner {
    /** A statement and its parameters. */
    record SqlQuery(String sql, List<Object> params) {
        void bind(PreparedStatement ps) throws SQLException {
            for (int i = 0; i < params.size(); i++) {
                ps.setObject(i + 1, params.get(i));
            }
        }
    }

    private final Connection connection;
    private final Schema schema;
    private final Map<Filter, Long> estimates = new IdentityHashMap<>();
    private int aliases;

    SqlSearchPlanner(Connection connection, Schema schema) {
        this.connection = connection;
        this.schema = schema;
    }

    /** The normalized path of a DN: its RDNs from the top, each followed by a comma. */
    static String path(Dn dn, Schema schema) {
        StringBuilder out = new StringBuilder();
        List<Rdn> rdns = dn.rdns();
        for (int i = rdns.size() - 1; i >= 0; i--) {
            out.append(rdns.get(i).normalized(schema)).append(',');
        }
        return out.toString();
    }

    /** The smallest string above every string starting with {@code prefix} (UTF-8 order). */
    static String prefixEnd(String prefix) {
        char last = prefix.charAt(prefix.length() - 1);
        if (last >= Character.MIN_SURROGATE - 1) {
            throw new IllegalArgumentException("prefix ends in a character this benchmark does not bound: " + prefix);
        }
        return prefix.substring(0, prefix.length() - 1) + (char) (last + 1);
    }

    SqlQuery plan(DirectorySearch s) throws SQLException {
        String base = path(s.base(), schema);
        List<Object> params = new ArrayList<>();
        StringBuilder sql = new StringBuilder("SELECT e.dn, e.attrs FROM entries e WHERE ");
        long scopeEstimate = switch (s.scope()) {
            case OBJECT -> 1;
            case ONELEVEL -> count("SELECT 1 FROM entries WHERE parent = (SELECT id FROM entries WHERE path = ?)",
                    List.of(base));
            case SUBTREE -> count("SELECT 1 FROM entries WHERE path >= ? AND path < ?", List.of(base, prefixEnd(base)));
        };
        boolean scopeDrives = scopeEstimate <= estimate(s.filter());
        // A unary + keeps SQLite from using an index for the scope when the filter drives.
        String col = scopeDrives ? "e." : "+e.";
        switch (s.scope()) {
            case OBJECT -> {
                sql.append(col).append("path = ?");
                params.add(base);
            }
            case ONELEVEL -> {
                sql.append(col).append("parent = (SELECT id FROM entries WHERE path = ?)");
                params.add(base);
            }
            case SUBTREE -> {
                sql.append(col).append("path >= ? AND ").append(col).append("path < ?");
                params.add(base);
                params.add(prefixEnd(base));
            }
        }
        sql.append(" AND ");
        if (scopeDrives) {
            probe(s.filter(), "e.id", sql, params);
        } else {
            sql.append("e.id IN (");
            set(s.filter(), sql, params);
            sql.append(')');
        }
        return new SqlQuery(sql.toString(), params);
    }

    private long count(String select, List<Object> params) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT count(*) FROM (" + select + ")")) {
            new SqlQuery(select, params).bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private long estimate(Filter f) throws SQLException {
        Long known = estimates.get(f);
        if (known != null) {
            return known;
        }
        long e;
        if (f instanceof Filter.And and) {
            e = count("SELECT 1 FROM entries", List.of());
            for (Filter c : and.children()) {
                if (!(c instanceof Filter.Not)) {
                    e = Math.min(e, estimate(c));
                }
            }
        } else if (f instanceof Filter.Or or) {
            e = 0;
            for (Filter c : or.children()) {
                e += estimate(c);
            }
        } else if (f instanceof Filter.Not) {
            e = count("SELECT 1 FROM entries", List.of());
        } else {
            StringBuilder sql = new StringBuilder();
            List<Object> params = new ArrayList<>();
            term(f, "id", null, sql, params);
            e = count(sql.toString(), params);
        }
        estimates.put(f, e);
        return e;
    }

    /** Appends a SELECT of the ids matching {@code f}, possibly with duplicates. */
    private void set(Filter f, StringBuilder sql, List<Object> params) throws SQLException {
        if (f instanceof Filter.Or or) {
            for (int i = 0; i < or.children().size(); i++) {
                sql.append(i == 0 ? "" : " UNION ALL ");
                set(or.children().get(i), sql, params);
            }
        } else if (f instanceof Filter.And and) {
            List<Filter> positive = new ArrayList<>();
            List<Filter> rest = new ArrayList<>();
            for (Filter c : and.children()) {
                (c instanceof Filter.Not ? rest : positive).add(c);
            }
            String d = "d" + ++aliases;
            if (positive.isEmpty()) {
                sql.append("SELECT ").append(d).append(".id FROM entries ").append(d);
            } else {
                positive.sort(Comparator.comparingLong(this::estimateUnchecked));
                sql.append("SELECT ").append(d).append(".id FROM (");
                set(positive.get(0), sql, params);
                sql.append(") ").append(d);
                rest.addAll(0, positive.subList(1, positive.size()));
            }
            String sep = " WHERE ";
            for (Filter c : rest) {
                sql.append(sep);
                probe(c, d + ".id", sql, params);
                sep = " AND ";
            }
        } else if (f instanceof Filter.Not not) {
            String d = "d" + ++aliases;
            sql.append("SELECT ").append(d).append(".id FROM entries ").append(d).append(" WHERE ");
            probe(not, d + ".id", sql, params);
        } else {
            term(f, "id", null, sql, params);
        }
    }

    /** Appends a condition true when the entry {@code id} matches {@code f}. */
    private void probe(Filter f, String id, StringBuilder sql, List<Object> params) {
        if (f instanceof Filter.And || f instanceof Filter.Or) {
            List<Filter> children = f instanceof Filter.And and ? and.children() : ((Filter.Or) f).children();
            if (children.isEmpty()) {
                sql.append(f instanceof Filter.And ? "1" : "0");
                return;
            }
            sql.append('(');
            for (int i = 0; i < children.size(); i++) {
                sql.append(i == 0 ? "" : f instanceof Filter.And ? " AND " : " OR ");
                probe(children.get(i), id, sql, params);
            }
            sql.append(')');
        } else if (f instanceof Filter.Not not) {
            sql.append("NOT ");
            probe(not.child(), id, sql, params);
        } else {
            sql.append("EXISTS (");
            term(f, "1", id, sql, params);
            sql.append(')');
        }
    }

    /**
     * Appends {@code SELECT what FROM av|presence WHERE ...} for one term; with {@code id} set, for
     * that entry only (a probe: a point lookup in the primary key for equality and presence, a
     * lookup in the (id, attr, value) index for ranges).
     */
    private void term(Filter f, String what, String id, StringBuilder sql, List<Object> params) {
        if (f instanceof Filter.Presence p) {
            sql.append("SELECT ").append(what).append(" FROM presence WHERE attr = ?");
            params.add(Schema.name(p.attribute()));
        } else {
            String attribute = attributeOf(f);
            if (!schema.isIndexed(attribute)) {
                throw new UnsupportedOperationException("SQLite searches indexed attributes only, not " + f);
            }
            boolean range = !(f instanceof Filter.Equality);
            sql.append("SELECT ").append(what).append(" FROM av").append(range && id != null ? " INDEXED BY av_entry" : "")
                    .append(" WHERE attr = ?");
            params.add(attribute);
            if (f instanceof Filter.Equality eq) {
                sql.append(" AND value = ?");
                params.add(schema.normalize(attribute, eq.value()));
            } else if (f instanceof Filter.GreaterOrEqual ge) {
                sql.append(" AND value >= ?");
                params.add(schema.normalize(attribute, ge.value()));
            } else if (f instanceof Filter.LessOrEqual le) {
                sql.append(" AND value <= ?");
                params.add(schema.normalize(attribute, le.value()));
            } else if (f instanceof Filter.Substring sub && sub.initial() != null && sub.any().isEmpty()
                    && sub.last() == null) {
                String prefix = schema.normalize(attribute, sub.initial());
                sql.append(" AND value >= ? AND value < ?");
                params.add(prefix);
                params.add(prefixEnd(prefix));
            } else {
                throw new UnsupportedOperationException("SQLite searches no substrings but initial ones: " + f);
            }
        }
        if (id != null) {
            sql.append(" AND id = ").append(id);
        }
    }

    private long estimateUnchecked(Filter f) {
        try {
            return estimate(f);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String attributeOf(Filter f) {
        if (f instanceof Filter.Equality eq) {
            return Schema.name(eq.attribute());
        }
        if (f instanceof Filter.GreaterOrEqual ge) {
            return Schema.name(ge.attribute());
        }
        if (f instanceof Filter.LessOrEqual le) {
            return Schema.name(le.attribute());
        }
        if (f instanceof Filter.Substring sub) {
            return Schema.name(sub.attribute());
        }
        throw new IllegalArgumentException("not a term: " + f);
    }
}
