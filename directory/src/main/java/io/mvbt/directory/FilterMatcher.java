// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The tests a simple filter term puts to the values of a fetched candidate, by the schema's
 * matching rules: equality, substrings and ordering compare normalized values; ordering compares
 * their UTF-8 bytes, unsigned, as the index keys do. A multi-valued attribute matches if any value
 * does (the caller tries each).
 */
final class FilterMatcher {
    private final Schema schema;

    FilterMatcher(Schema schema) {
        this.schema = schema;
    }

    /** The substring filter with its pieces normalized by the attribute's rule. */
    private Filter.Substring normalized(String attribute, Filter.Substring sub) {
        return new Filter.Substring(attribute,
                sub.initial() == null ? null : schema.normalize(attribute, sub.initial()),
                sub.any().stream().map(piece -> schema.normalize(attribute, piece)).toList(),
                sub.last() == null ? null : schema.normalize(attribute, sub.last()));
    }

    /** Whether a normalized value matches a substring filter whose pieces are normalized. */
    private static boolean substringMatches(Filter.Substring sub, String value) {
        int from = 0;
        if (sub.initial() != null) {
            if (!value.startsWith(sub.initial())) {
                return false;
            }
            from = sub.initial().length();
        }
        for (String piece : sub.any()) {
            int found = value.indexOf(piece, from);
            if (found < 0) {
                return false;
            }
            from = found + piece.length();
        }
        if (sub.last() != null) {
            return value.length() - from >= sub.last().length() && value.endsWith(sub.last());
        }
        return true;
    }

    /**
     * The test a simple filter puts to one normalized value of its attribute, with its own operands
     * normalized once (for checking many candidates); null for presence, which tests no value.
     */
    java.util.function.Predicate<String> valueTest(Filter filter) {
        String attribute = attributeOf(filter);
        if (filter instanceof Filter.Presence) {
            return null;
        }
        if (filter instanceof Filter.Equality eq) {
            return schema.normalize(attribute, eq.value())::equals;
        }
        if (filter instanceof Filter.GreaterOrEqual ge) {
            byte[] bound = schema.normalize(attribute, ge.value()).getBytes(StandardCharsets.UTF_8);
            return value -> Arrays.compareUnsigned(value.getBytes(StandardCharsets.UTF_8), bound) >= 0;
        }
        if (filter instanceof Filter.LessOrEqual le) {
            byte[] bound = schema.normalize(attribute, le.value()).getBytes(StandardCharsets.UTF_8);
            return value -> Arrays.compareUnsigned(value.getBytes(StandardCharsets.UTF_8), bound) <= 0;
        }
        Filter.Substring sub = normalized(attribute, (Filter.Substring) filter);
        return value -> substringMatches(sub, value);
    }

    static String attributeOf(Filter filter) {
        if (filter instanceof Filter.Equality f) {
            return f.attribute();
        }
        if (filter instanceof Filter.GreaterOrEqual f) {
            return f.attribute();
        }
        if (filter instanceof Filter.LessOrEqual f) {
            return f.attribute();
        }
        if (filter instanceof Filter.Substring f) {
            return f.attribute();
        }
        if (filter instanceof Filter.Presence f) {
            return f.attribute();
        }
        throw new IllegalArgumentException("not a simple filter: " + filter);
    }
}
