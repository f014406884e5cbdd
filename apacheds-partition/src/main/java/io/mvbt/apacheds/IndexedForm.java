// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.util.function.UnaryOperator;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.api.ldap.model.schema.AttributeType;
import org.apache.directory.api.ldap.model.schema.MatchingRule;
import org.apache.directory.api.ldap.model.schema.Normalizer;

/**
 * The form an attribute index keeps a value in: normalized by the attribute's matching rule, as
 * {@code Value.getNormalized()} does (" miller " for "Miller" under caseIgnoreMatch). ApacheDS
 * asks an index's range counts and positions its cursors for {@code >=} and {@code <=} with the
 * filter's value as the client wrote it ({@code Value.getString()}, in its optimizer and cursor
 * builder): compared as it is with the stored forms, "Miller" sorts before every key and "u050"
 * after every key, so {@code (sn>=Miller)} found nothing. JDBM's indexes compare through the
 * rule's comparator, which normalizes what it is given; ours put such a value in the stored form
 * first. Normalizing a stored form again leaves it as it is.
 */
final class IndexedForm {
    private IndexedForm() {
    }

    /** The stored form of a value of {@code type}; a value the rule cannot normalize stays as it is, as in ApacheDS's comparators. */
    static UnaryOperator<String> of(AttributeType type) {
        Normalizer normalizer = normalizer(type);
        if (normalizer == null) {
            return UnaryOperator.identity();
        }
        return value -> {
            if (value == null) {
                return null;
            }
            try {
                return normalizer.normalize(value);
            } catch (LdapException e) {
                return value;
            }
        };
    }

    /** The rule {@code Value} normalizes with: equality, else substring, else ordering. */
    private static Normalizer normalizer(AttributeType type) {
        MatchingRule rule = type.getEquality() != null ? type.getEquality()
                : type.getSubstring() != null ? type.getSubstring() : type.getOrdering();
        return rule == null ? null : rule.getNormalizer();
    }
}
