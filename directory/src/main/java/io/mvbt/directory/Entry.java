// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A directory entry: its DN and its attributes, each a list of string values. Attribute names are
 * case-insensitive and kept lower-cased, in the order first given. Immutable.
 */
public final class Entry {
    private final Dn dn;
    private final Map<String, List<String>> attributes;

    private Entry(Dn dn, Map<String, List<String>> attributes) {
        this.dn = dn;
        this.attributes = attributes;
    }

    public static Builder builder(Dn dn) {
        return new Builder(dn);
    }

    public static Builder builder(String dn) {
        return new Builder(Dn.parse(dn));
    }

    /** Collects attribute values; {@link #build()} gives the entry. */
    public static final class Builder {
        private final Dn dn;
        private final Map<String, List<String>> attributes = new LinkedHashMap<>();

        Builder(Dn dn) {
            this.dn = dn;
        }

        public Builder add(String attribute, String... values) {
            List<String> list = attributes.computeIfAbsent(Schema.name(attribute), a -> new ArrayList<>());
            Collections.addAll(list, values);
            return this;
        }

        public Entry build() {
            Map<String, List<String>> copy = new LinkedHashMap<>();
            attributes.forEach((name, values) -> {
                if (!values.isEmpty()) {
                    copy.put(name, List.copyOf(values));
                }
            });
            return new Entry(dn, Collections.unmodifiableMap(copy));
        }
    }

    /**
     * An entry over a freshly decoded record's attributes, without copying them: the map and its
     * lists are wrapped read-only. Falls back to {@link #of} if a name is not lower-case or a list
     * is empty, as records written by other paths might have.
     */
    static Entry ofDecoded(Dn dn, Map<String, List<String>> attributes) {
        for (Map.Entry<String, List<String>> e : attributes.entrySet()) {
            if (e.getValue().isEmpty() || !Schema.name(e.getKey()).equals(e.getKey())) {
                return of(dn, attributes);
            }
            e.setValue(Collections.unmodifiableList(e.getValue()));
        }
        return new Entry(dn, Collections.unmodifiableMap(attributes));
    }

    static Entry of(Dn dn, Map<String, List<String>> attributes) {
        Builder b = new Builder(dn);
        attributes.forEach((name, values) -> b.add(name, values.toArray(new String[0])));
        return b.build();
    }

    public Dn dn() {
        return dn;
    }

    /** Attribute name (lower-case) to values. */
    public Map<String, List<String>> attributes() {
        return attributes;
    }

    /** The values of {@code attribute} (any case), empty if it has none. */
    public List<String> values(String attribute) {
        return attributes.getOrDefault(Schema.name(attribute), List.of());
    }

    /** The first value of {@code attribute}, or null. */
    public String first(String attribute) {
        List<String> values = values(attribute);
        return values.isEmpty() ? null : values.get(0);
    }

    Entry withDn(Dn newDn) {
        return new Entry(newDn, attributes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry other && dn.equals(other.dn) && attributes.equals(other.attributes);
    }

    @Override
    public int hashCode() {
        return dn.hashCode() * 31 + attributes.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("dn: ").append(dn);
        attributes.forEach((name, values) -> values.forEach(v -> out.append('\n').append(name).append(": ").append(v)));
        return out.toString();
    }
}
