// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.mvbt.cursor.IndexKey;
import io.mvbt.cursor.IndexScan;
import io.mvbt.cursor.Query;
import io.mvbt.revisions.Tree;

/**
 * Turns a parsed filter into the cursor module's query algebra:
 * <ul>
 * <li>equality, {@code >=}, {@code <=} on an indexed attribute: an index scan of the normalized value;
 * <li>a substring with an initial part on an indexed attribute: a prefix scan, ANDed with a check of
 * the whole pattern on the entries it finds when there are any/final parts;
 * <li>presence: the presence index (it holds every attribute);
 * <li>anything else: the presence index of the attribute (only entries having it can match), ANDed
 * with the filter checked on each of those entries.
 * </ul>
 * Every index term carries its entry check, so an AND that has already narrowed the candidates can
 * test them instead of scanning a large index range.
 */
final class FilterPlanner {
    private final DirectoryTrees trees;
    private final FilterMatcher matcher;
    private final int maxKeySize;

    FilterPlanner(DirectoryTrees trees, int maxKeySize) {
        this.trees = trees;
        this.matcher = new FilterMatcher(trees.schema);
        this.maxKeySize = maxKeySize;
    }

    /** A simple filter's check of a candidate: decodes only the attribute it tests, and normalizes its operands once. */
    private Query.EntryTest check(Filter filter, String attribute) {
        java.util.function.Predicate<String> test = matcher.valueTest(filter);
        byte[] name = attribute.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Schema schema = trees.schema;
        java.util.function.Predicate<String> normalizedTest = test == null ? null
                : raw -> test.test(schema.normalize(attribute, raw));
        return (id, record) -> EntryCodec.anyValue(record, name, normalizedTest);
    }

    Query plan(Filter filter) {
        if (filter instanceof Filter.And and) {
            return new Query.And(plan(and.children()));
        }
        if (filter instanceof Filter.Or or) {
            return new Query.Or(plan(or.children()));
        }
        if (filter instanceof Filter.Not not) {
            return Query.not(plan(not.child()));
        }
        String attribute = FilterMatcher.attributeOf(filter);
        Query.EntryTest check = check(filter, attribute);
        if (filter instanceof Filter.Presence) {
            return Query.index(presence(attribute), check);
        }
        Tree index = trees.indexes.get(attribute);
        if (index != null) {
            if (filter instanceof Filter.Equality eq && fits(eq.value(), attribute)) {
                return Query.index(IndexScan.equality(index, attribute, normalized(attribute, eq.value())), check);
            }
            if (filter instanceof Filter.GreaterOrEqual ge && fits(ge.value(), attribute)) {
                return Query.index(IndexScan.atLeast(index, attribute, normalized(attribute, ge.value())), check);
            }
            if (filter instanceof Filter.LessOrEqual le && fits(le.value(), attribute)) {
                return Query.index(IndexScan.atMost(index, attribute, normalized(attribute, le.value())), check);
            }
            if (filter instanceof Filter.Substring sub && sub.initial() != null && fits(sub.initial(), attribute)) {
                Query prefix = Query.index(IndexScan.prefix(index, attribute, normalized(attribute, sub.initial())),
                        sub.any().isEmpty() && sub.last() == null ? check : null);
                if (sub.any().isEmpty() && sub.last() == null) {
                    return prefix;
                }
                return Query.and(prefix, Query.scan(filter.toString(), check));
            }
        }
        return Query.and(Query.index(presence(attribute), null), Query.scan(filter.toString(), check));
    }

    private List<Query> plan(List<Filter> filters) {
        List<Query> out = new ArrayList<>(filters.size());
        for (Filter f : filters) {
            out.add(plan(f));
        }
        return out;
    }

    private IndexScan presence(String attribute) {
        return IndexScan.equality(trees.presence, "presence", attribute.getBytes(StandardCharsets.UTF_8));
    }

    private byte[] normalized(String attribute, String value) {
        return trees.schema.normalize(attribute, value).getBytes(StandardCharsets.UTF_8);
    }

    /** A value too long to be an index key is never in the index; such a term is checked on entries. */
    private boolean fits(String value, String attribute) {
        return IndexKey.encodedLength(normalized(attribute, value)) <= maxKeySize;
    }
}
