// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.util.List;

/**
 * The filter algebra over candidate sets: index terms, unindexed terms checked on fetched entries,
 * and AND / OR / NOT. A query is a plain tree of values; {@link QueryEvaluator} decides the order of
 * work on one snapshot (cheapest AND child first, stop at an empty set) and records it in a
 * {@link QueryPlan}.
 */
public sealed interface Query {
    /** Tests one entry, given its id and its bytes in the master tree. */
    @FunctionalInterface
    interface EntryTest {
        boolean test(long id, byte[] entry);
    }

    /**
     * A term answered by an index scan. {@code check}, if not null, answers the same term from an
     * entry; inside an AND that has already narrowed the candidates far below the scan's estimate,
     * the evaluator checks those few entries instead of scanning the index.
     */
    record Indexed(IndexScan scan, EntryTest check) implements Query {
    }

    /** A term no index answers: every candidate in its domain is fetched and tested. */
    record Unindexed(String description, EntryTest test) implements Query {
    }

    /** Entries matching every child; with no children, every entry of the scope. */
    record And(List<Query> children) implements Query {
        public And {
            children = List.copyOf(children);
        }
    }

    /** Entries matching any child; with no children, none. */
    record Or(List<Query> children) implements Query {
        public Or {
            children = List.copyOf(children);
        }
    }

    /** Entries of the scope that do not match {@code child}. */
    record Not(Query child) implements Query {
    }

    static Query index(IndexScan scan) {
        return new Indexed(scan, null);
    }

    static Query index(IndexScan scan, EntryTest check) {
        return new Indexed(scan, check);
    }

    static Query scan(String description, EntryTest test) {
        return new Unindexed(description, test);
    }

    static Query and(Query... children) {
        return new And(List.of(children));
    }

    static Query or(Query... children) {
        return new Or(List.of(children));
    }

    static Query not(Query child) {
        return new Not(child);
    }
}
