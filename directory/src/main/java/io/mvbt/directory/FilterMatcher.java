package io.mvbt.directory;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Evaluates a filter on one entry's attributes, by the schema's matching rules: what an unindexed
 * term does with each fetched candidate. Equality, substrings and ordering compare normalized
 * values; ordering compares their UTF-8 bytes, unsigned, as the index keys do. A multi-valued
 * attribute matches if any value does.
 */
final class FilterMatcher {
    private final Schema schema;

    FilterMatcher(Schema schema) {
        this.schema = schema;
    }

    boolean matches(Filter filter, Map<String, List<String>> attributes) {
        if (filter instanceof Filter.And and) {
            for (Filter child : and.children()) {
                if (!matches(child, attributes)) {
                    return false;
                }
            }
            return true;
        }
        if (filter instanceof Filter.Or or) {
            for (Filter child : or.children()) {
                if (matches(child, attributes)) {
                    return true;
                }
            }
            return false;
        }
        if (filter instanceof Filter.Not not) {
            return !matches(not.child(), attributes);
        }
        if (filter instanceof Filter.Presence presence) {
            return attributes.containsKey(presence.attribute());
        }
        String attribute = attributeOf(filter);
        List<String> values = attributes.get(attribute);
        if (values == null) {
            return false;
        }
        for (String raw : values) {
            String value = schema.normalize(attribute, raw);
            if (valueMatches(filter, attribute, value)) {
                return true;
            }
        }
        return false;
    }

    private boolean valueMatches(Filter filter, String attribute, String value) {
        if (filter instanceof Filter.Equality eq) {
            return value.equals(schema.normalize(attribute, eq.value()));
        }
        if (filter instanceof Filter.GreaterOrEqual ge) {
            return compare(value, schema.normalize(attribute, ge.value())) >= 0;
        }
        if (filter instanceof Filter.LessOrEqual le) {
            return compare(value, schema.normalize(attribute, le.value())) <= 0;
        }
        Filter.Substring sub = (Filter.Substring) filter;
        int from = 0;
        if (sub.initial() != null) {
            String initial = schema.normalize(attribute, sub.initial());
            if (!value.startsWith(initial)) {
                return false;
            }
            from = initial.length();
        }
        for (String piece : sub.any()) {
            int found = value.indexOf(schema.normalize(attribute, piece), from);
            if (found < 0) {
                return false;
            }
            from = found + schema.normalize(attribute, piece).length();
        }
        if (sub.last() != null) {
            String last = schema.normalize(attribute, sub.last());
            return value.length() - from >= last.length() && value.endsWith(last);
        }
        return true;
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

    static int compare(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
