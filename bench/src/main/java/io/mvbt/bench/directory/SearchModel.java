// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.mvbt.bench.VerificationException;
import io.mvbt.directory.Dn;
import io.mvbt.directory.Entry;
import io.mvbt.directory.Filter;
import io.mvbt.directory.Schema;

/**
 * What each search must return, worked out from the generated entries alone (no store involved):
 * scope by DN, filter by a direct reading of RFC 4515 on values normalized by the schema. A store's
 * answer is verified against it: the same entries, each with all its attributes.
 */
final class SearchModel {
    private final Schema schema;
    private final List<DirectorySearch> searches;
    /** Per search: normalized DN to the entry as generated. */
    private final Map<String, Map<String, Entry>> expected = new HashMap<>();

    SearchModel(Schema schema, List<DirectorySearch> searches) {
        this.schema = schema;
        this.searches = searches;
        for (DirectorySearch s : searches) {
            expected.put(s.name(), new LinkedHashMap<>());
        }
    }

    /** Takes one generated entry into account. */
    void accept(Entry entry) {
        for (DirectorySearch s : searches) {
            if (inScope(entry.dn(), s) && matches(s.filter(), entry)) {
                expected.get(s.name()).put(entry.dn().normalized(schema), entry);
            }
        }
    }

    long count(DirectorySearch s) {
        return expected.get(s.name()).size();
    }

    /** Fails unless {@code entry} matches no search (the writer's entries must not change the counts). */
    void checkOutsideEverySearch(Entry entry) {
        for (DirectorySearch s : searches) {
            if (inScope(entry.dn(), s) && matches(s.filter(), entry)) {
                throw new IllegalStateException("the writer's entry " + entry.dn() + " would be found by " + s);
            }
        }
    }

    /** Compares what a store returned for {@code s} with what it must return. */
    void verify(String store, DirectorySearch s, Map<String, Entry> returned) {
        Map<String, Entry> want = expected.get(s.name());
        if (returned.size() != want.size()) {
            throw new VerificationException(store + " " + s.name() + ": " + returned.size() + " entries, expected "
                    + want.size());
        }
        for (Map.Entry<String, Entry> e : returned.entrySet()) {
            Entry w = want.get(e.getKey());
            if (w == null) {
                throw new VerificationException(store + " " + s.name() + ": returned " + e.getKey()
                        + ", which the search must not find");
            }
            if (!w.attributes().equals(e.getValue().attributes())) {
                throw new VerificationException(store + " " + s.name() + ": entry " + e.getKey()
                        + " came back with other attributes:\n" + e.getValue() + "\nexpected:\n" + w);
            }
        }
    }

    private boolean inScope(Dn dn, DirectorySearch s) {
        if (!dn.isWithin(s.base(), schema)) {
            return false;
        }
        return switch (s.scope()) {
            case OBJECT -> dn.size() == s.base().size();
            case ONELEVEL -> dn.size() == s.base().size() + 1;
            case SUBTREE -> true;
        };
    }

    boolean matches(Filter f, Entry entry) {
        if (f instanceof Filter.And and) {
            return and.children().stream().allMatch(c -> matches(c, entry));
        }
        if (f instanceof Filter.Or or) {
            return or.children().stream().anyMatch(c -> matches(c, entry));
        }
        if (f instanceof Filter.Not not) {
            return !matches(not.child(), entry);
        }
        if (f instanceof Filter.Presence p) {
            return !entry.values(p.attribute()).isEmpty();
        }
        for (String raw : entry.values(attribute(f))) {
            String v = schema.normalize(attribute(f), raw);
            boolean hit;
            if (f instanceof Filter.Equality eq) {
                hit = v.equals(norm(eq.attribute(), eq.value()));
            } else if (f instanceof Filter.GreaterOrEqual ge) {
                hit = compareUtf8(v, norm(ge.attribute(), ge.value())) >= 0;
            } else if (f instanceof Filter.LessOrEqual le) {
                hit = compareUtf8(v, norm(le.attribute(), le.value())) <= 0;
            } else if (f instanceof Filter.Substring sub && sub.any().isEmpty() && sub.last() == null) {
                hit = v.startsWith(norm(sub.attribute(), sub.initial()));
            } else {
                throw new IllegalArgumentException("the model does not evaluate " + f);
            }
            if (hit) {
                return true;
            }
        }
        return false;
    }

    private static String attribute(Filter f) {
        if (f instanceof Filter.Equality eq) {
            return eq.attribute();
        }
        if (f instanceof Filter.GreaterOrEqual ge) {
            return ge.attribute();
        }
        if (f instanceof Filter.LessOrEqual le) {
            return le.attribute();
        }
        if (f instanceof Filter.Substring sub) {
            return sub.attribute();
        }
        throw new IllegalArgumentException("the model does not evaluate " + f);
    }

    private String norm(String attribute, String value) {
        return schema.normalize(attribute, value);
    }

    /** Values order as their UTF-8 bytes, unsigned, as in both stores' indexes. */
    private static int compareUtf8(String a, String b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
