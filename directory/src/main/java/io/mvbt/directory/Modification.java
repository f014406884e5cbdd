// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.util.List;

/**
 * One change of a modify operation. {@code ADD} adds values (a value already there is an error);
 * {@code DELETE} removes the given values, or the whole attribute when none are given;
 * {@code REPLACE} sets the values (none: removes the attribute). Values compare by the attribute's
 * matching rule.
 */
public record Modification(Op op, String attribute, List<String> values) {
    public enum Op {
        ADD, DELETE, REPLACE
    }

    public Modification {
        attribute = Schema.name(attribute);
        values = List.copyOf(values);
    }

    public static Modification add(String attribute, String... values) {
        return new Modification(Op.ADD, attribute, List.of(values));
    }

    public static Modification delete(String attribute, String... values) {
        return new Modification(Op.DELETE, attribute, List.of(values));
    }

    public static Modification replace(String attribute, String... values) {
        return new Modification(Op.REPLACE, attribute, List.of(values));
    }
}
