// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the directory knows of attributes: how each one matches and which ones are indexed.
 * Attribute names are case-insensitive (kept lower-cased). An attribute the schema does not name
 * matches case-exactly and is not indexed; every attribute is in the presence index.
 *
 * <p>{@link #defaults()}: case-insensitive {@code cn, sn, givenname, ou, o, dc, l, st, c, mail,
 * uid, objectclass, description, title, displayname, street}; indexed {@code objectclass, cn, sn,
 * givenname, ou, uid, mail}.
 */
public final class Schema {
    private final Map<String, Matching> matching;
    private final Set<String> indexed;

    private Schema(Map<String, Matching> matching, Set<String> indexed) {
        this.matching = Collections.unmodifiableMap(new HashMap<>(matching));
        this.indexed = Collections.unmodifiableSet(new TreeSet<>(indexed));
    }

    public static Schema defaults() {
        Map<String, Matching> m = new HashMap<>();
        for (String a : new String[] {"cn", "sn", "givenname", "ou", "o", "dc", "l", "st", "c", "mail", "uid",
                "objectclass", "description", "title", "displayname", "street"}) {
            m.put(a, Matching.CASE_IGNORE);
        }
        return new Schema(m, Set.of("objectclass", "cn", "sn", "givenname", "ou", "uid", "mail"));
    }

    /**
     * This schema with {@code attribute} matching by {@code rule}. Only for a new directory: an
     * existing one refuses to open with rules other than those its keys were normalized with.
     */
    public Schema withMatching(String attribute, Matching rule) {
        Map<String, Matching> m = new HashMap<>(matching);
        m.put(name(attribute), rule);
        return new Schema(m, indexed);
    }

    /**
     * The rules that differ from the default (case-exact), as sorted {@code attribute:RULE} pairs
     * joined by commas: what a directory records, since its keys were normalized by them.
     */
    String matchingRules() {
        StringBuilder out = new StringBuilder();
        new TreeMap<>(matching).forEach((attribute, rule) -> {
            if (rule != Matching.CASE_EXACT) {
                out.append(out.length() == 0 ? "" : ",").append(attribute).append(':').append(rule);
            }
        });
        return out.toString();
    }

    /** This schema with an index on {@code attribute}. */
    public Schema withIndex(String attribute) {
        Set<String> i = new TreeSet<>(indexed);
        i.add(name(attribute));
        return new Schema(matching, i);
    }

    /** This schema without an index on {@code attribute}. */
    public Schema withoutIndex(String attribute) {
        Set<String> i = new TreeSet<>(indexed);
        i.remove(name(attribute));
        return new Schema(matching, i);
    }

    /** The canonical (lower-case) form of an attribute name. */
    public static String name(String attribute) {
        return attribute.toLowerCase(Locale.ROOT);
    }

    public Matching matching(String attribute) {
        return matching.getOrDefault(name(attribute), Matching.CASE_EXACT);
    }

    public String normalize(String attribute, String value) {
        return matching(attribute).normalize(value);
    }

    public boolean isIndexed(String attribute) {
        return indexed.contains(name(attribute));
    }

    public Set<String> indexed() {
        return indexed;
    }
}
