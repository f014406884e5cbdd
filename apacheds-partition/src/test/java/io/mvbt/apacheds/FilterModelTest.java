// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.directory.api.ldap.model.entry.DefaultEntry;
import org.apache.directory.api.ldap.model.entry.DefaultModification;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.entry.ModificationOperation;
import org.apache.directory.api.ldap.model.message.SearchScope;
import org.apache.directory.ldap.client.api.LdapNetworkConnection;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every filter kind (equality, presence, substrings, {@code >=}, {@code <=}, AND, OR, NOT) on an
 * indexed and an unindexed attribute of every kind of matching rule ApacheDS ships (case-ignore,
 * case-exact, numeric string, generalized time, integer), checked against a model of random
 * entries after they are added, modified, renamed and moved, and after a restart. Values are
 * ordered as ApacheDS's evaluators order them: by the ordering rule, else the equality rule.
 * Sizes follow mvbt.profile; a failure names the seed ({@code -Dmvbt.seed} repeats it).
 *
 * <p>Two answers of ApacheDS 2.0.0.AM27 itself are wrong whatever the partition (JDBM's too), and
 * the model steers around them: no substring filter on a caseExactMatch attribute matches, and a
 * REPLACE that gives an entry an indexed attribute it did not have leaves the entry out of the
 * presence index (the model adds such an attribute with an ADD).
 */
class FilterModelTest {
    private static final boolean LONG = "long".equals(System.getProperty("mvbt.profile"));
    private static final String UNIT_A = "ou=a," + DirectoryServer.BASE;
    private static final String UNIT_B = "ou=b," + DirectoryServer.BASE;

    /** The attributes of the model: each rule indexed and not; sn is also what inetOrgPerson requires. */
    private static final List<Attr> ATTRIBUTES = List.of(
            new Attr("sn", Rule.CASE_IGNORE, true, true),
            new Attr("dnQualifier", Rule.CASE_IGNORE, false, true),
            new Attr("javaClassName", Rule.CASE_EXACT, true, false),
            new Attr("labeledURI", Rule.CASE_EXACT, false, true),
            new Attr("x121Address", Rule.NUMERIC_STRING, true, true),
            new Attr("internationaliSDNNumber", Rule.NUMERIC_STRING, false, true),
            new Attr("krb5ValidStart", Rule.GENERALIZED_TIME, true, false),
            new Attr("krb5ValidEnd", Rule.GENERALIZED_TIME, false, false),
            new Attr("krb5MaxLife", Rule.INTEGER, true, false),
            new Attr("krb5MaxRenew", Rule.INTEGER, false, false));

    @TempDir
    Path directory;

    @ParameterizedTest
    @EnumSource(names = {"MVBT", "MVBT_STOCK"})
    void everyFilterKindOnEveryAttributeKindFindsWhatTheModelFinds(DirectoryServer.Kind kind) throws Exception {
        long seed = Long.getLong("mvbt.seed", System.nanoTime());
        Random random = new Random(seed);
        int entries = LONG ? 1_000 : 150;
        String[] indexes = ATTRIBUTES.stream().filter(a -> a.indexed).map(a -> a.name).toArray(String[]::new);
        String[] all = new String[indexes.length + 2];
        all[0] = "uid";
        all[1] = "ou";
        System.arraycopy(indexes, 0, all, 2, indexes.length);
        Map<String, Map<String, List<String>>> model = new TreeMap<>();
        List<String> mismatches = new ArrayList<>();
        DirectoryServer server = DirectoryServer.start(kind, directory, true, all);
        try {
            try (LdapNetworkConnection ldap = Ldap.connect(server.port())) {
                for (String unit : List.of(UNIT_A, UNIT_B)) {
                    Ldap.add(ldap, new DefaultEntry(unit, "objectClass: organizationalUnit",
                            "ou: " + unit.substring(3, 4)));
                }
                for (int i = 0; i < entries; i++) {
                    add(ldap, model, random, i);
                }
                check(ldap, model, random, "after adds", mismatches);
                for (int i = 0; i < entries / 3; i++) {
                    modify(ldap, model, random);
                }
                check(ldap, model, random, "after modifications", mismatches);
                for (int i = 0; i < entries / 5; i++) {
                    renameOrMove(ldap, model, random, i);
                }
                check(ldap, model, random, "after renames and moves", mismatches);
            }
            server.close();
            server = DirectoryServer.start(kind, directory, false, all);
            try (LdapNetworkConnection ldap = Ldap.connect(server.port())) {
                check(ldap, model, random, "after a restart", mismatches);
            }
        } finally {
            server.close();
        }
        assertEquals(List.of(), mismatches, kind + ", seed " + seed + " (-Dmvbt.seed=" + seed + ")");
    }

    // ---- the model's attributes and rules

    /** How a matching rule compares values, and how the test makes them. */
    private enum Rule {
        CASE_IGNORE(true) {
            @Override
            Comparable<?> form(String value) {
                return spaces(value).toLowerCase(Locale.ROOT);
            }

            @Override
            String value(Random random) {
                return cased(word(random), random);
            }
        },
        CASE_EXACT(false) { // ApacheDS matches no substring filter on caseExactMatch (see above)
            @Override
            Comparable<?> form(String value) {
                return spaces(value);
            }

            @Override
            String value(Random random) {
                return cased(word(random), random);
            }
        },
        NUMERIC_STRING(true) {
            @Override
            Comparable<?> form(String value) {
                return value.replace(" ", "");
            }

            @Override
            String value(Random random) {
                String digits = Integer.toString(random.nextInt(10_000));
                digits = "0".repeat(random.nextInt(3)) + digits;
                int space = random.nextInt(digits.length() + 3);
                return space < digits.length() && space > 0 ? digits.substring(0, space) + " " + digits.substring(space)
                        : digits;
            }
        },
        GENERALIZED_TIME(false) {
            @Override
            Comparable<?> form(String value) {
                String zone = value.substring(14);
                ZoneOffset offset = zone.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(zone.substring(0, 3) + ":"
                        + zone.substring(3));
                return java.time.LocalDateTime.parse(value.substring(0, 14), DateTimeFormatter.ofPattern("uuuuMMddHHmmss"))
                        .toInstant(offset);
            }

            @Override
            String value(Random random) {
                Instant instant = Instant.parse("2020-01-01T00:00:00Z").plusSeconds(random.nextInt(10 * 365 * 86_400));
                String[] zones = {"Z", "+0130", "-0500"};
                String zone = zones[random.nextInt(zones.length)];
                ZoneOffset offset = zone.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(zone.substring(0, 3) + ":"
                        + zone.substring(3));
                return DateTimeFormatter.ofPattern("uuuuMMddHHmmss").format(instant.atOffset(offset)) + zone;
            }
        },
        INTEGER(false) {
            @Override
            Comparable<?> form(String value) {
                return new BigInteger(value);
            }

            @Override
            String value(Random random) {
                return Integer.toString(random.nextInt(5_500) - 500);
            }
        };

        private static final String[] WORDS = {"adams", "baker", "miller", "miller jr", "nash", "o neil", "smith",
            "zorn", "able", "able baker", "u050", "u10"};

        final boolean substrings;

        Rule(boolean substrings) {
            this.substrings = substrings;
        }

        /** What the rule compares: values with equal forms are equal, and forms are ordered as the rule orders. */
        abstract Comparable<?> form(String value);

        abstract String value(Random random);

        @SuppressWarnings({"unchecked", "rawtypes"})
        int compare(String a, String b) {
            return ((Comparable) form(a)).compareTo(form(b));
        }

        private static String word(Random random) {
            String word = WORDS[random.nextInt(WORDS.length)];
            return random.nextBoolean() ? word + random.nextInt(10) : word;
        }

        private static String cased(String word, Random random) {
            switch (random.nextInt(3)) {
                case 0:
                    return word;
                case 1:
                    return word.toUpperCase(Locale.ROOT);
                default:
                    return Character.toUpperCase(word.charAt(0)) + word.substring(1);
            }
        }

        private static String spaces(String value) {
            return value.trim().replaceAll(" +", " ");
        }
    }

    private static final class Attr {
        final String name;
        final Rule rule;
        final boolean indexed;
        final boolean multiValued;

        Attr(String name, Rule rule, boolean indexed, boolean multiValued) {
            this.name = name;
            this.rule = rule;
            this.indexed = indexed;
            this.multiValued = multiValued;
        }

        @Override
        public String toString() {
            return name + (indexed ? " (indexed)" : "");
        }
    }

    // ---- changes, made over LDAP and in the model

    private static void add(LdapNetworkConnection ldap, Map<String, Map<String, List<String>>> model, Random random,
            int n) throws Exception {
        String dn = "uid=f" + n + "," + (random.nextBoolean() ? UNIT_A : UNIT_B);
        Entry entry = new DefaultEntry(dn, "objectClass: inetOrgPerson", "objectClass: extensibleObject",
                "uid: f" + n, "cn: Person " + n);
        Map<String, List<String>> attributes = new TreeMap<>();
        for (Attr a : ATTRIBUTES) {
            if (a.name.equals("sn") || random.nextInt(4) > 0) {
                List<String> values = values(a, random);
                entry.add(a.name, values.toArray(new String[0]));
                attributes.put(a.name, values);
            }
        }
        Ldap.add(ldap, entry);
        model.put(dn, attributes);
    }

    /** One to three values (one if single-valued) of distinct forms. */
    private static List<String> values(Attr a, Random random) {
        List<String> values = new ArrayList<>();
        int n = a.multiValued ? 1 + random.nextInt(3) : 1;
        while (values.size() < n) {
            String value = a.rule.value(random);
            if (values.stream().noneMatch(v -> a.rule.compare(v, value) == 0)) {
                values.add(value);
            }
        }
        return values;
    }

    private static void modify(LdapNetworkConnection ldap, Map<String, Map<String, List<String>>> model, Random random)
            throws Exception {
        List<String> dns = new ArrayList<>(model.keySet());
        String dn = dns.get(random.nextInt(dns.size()));
        Map<String, List<String>> attributes = model.get(dn);
        Attr a = ATTRIBUTES.get(random.nextInt(ATTRIBUTES.size()));
        List<String> values = values(a, random);
        if (!a.name.equals("sn") && attributes.containsKey(a.name) && random.nextInt(3) == 0) {
            ldap.modify(dn, new DefaultModification(ModificationOperation.REMOVE_ATTRIBUTE, a.name));
            attributes.remove(a.name);
        } else if (a.multiValued && attributes.containsKey(a.name) && random.nextBoolean()) {
            String value = values.get(0);
            if (attributes.get(a.name).stream().noneMatch(v -> a.rule.compare(v, value) == 0)) {
                ldap.modify(dn, new DefaultModification(ModificationOperation.ADD_ATTRIBUTE, a.name, value));
                attributes.get(a.name).add(value);
            }
        } else {
            // a REPLACE that adds the attribute would miss ApacheDS's presence index (see above)
            ldap.modify(dn, new DefaultModification(attributes.containsKey(a.name)
                    ? ModificationOperation.REPLACE_ATTRIBUTE : ModificationOperation.ADD_ATTRIBUTE, a.name,
                    values.toArray(new String[0])));
            attributes.put(a.name, values);
        }
    }

    private static void renameOrMove(LdapNetworkConnection ldap, Map<String, Map<String, List<String>>> model,
            Random random, int n) throws Exception {
        List<String> dns = new ArrayList<>(model.keySet());
        String dn = dns.get(random.nextInt(dns.size()));
        String parent = dn.substring(dn.indexOf(',') + 1);
        String moved;
        if (random.nextBoolean()) {
            ldap.rename(dn, "uid=r" + n, true);
            moved = "uid=r" + n + "," + parent;
        } else {
            String other = parent.equals(UNIT_A) ? UNIT_B : UNIT_A;
            ldap.move(dn, other);
            moved = dn.substring(0, dn.indexOf(',')) + "," + other;
        }
        model.put(moved, model.remove(dn));
    }

    // ---- filters and the check

    /** Searches every filter of a fresh random set, SUBTREE from the suffix and ONELEVEL from a unit. */
    private static void check(LdapNetworkConnection ldap, Map<String, Map<String, List<String>>> model, Random random,
            String phase, List<String> mismatches) throws Exception {
        for (Map.Entry<String, Predicate<Map<String, List<String>>>> filter : filters(model, random).entrySet()) {
            for (String base : List.of(DirectoryServer.BASE, UNIT_A)) {
                SearchScope scope = base.equals(UNIT_A) ? SearchScope.ONELEVEL : SearchScope.SUBTREE;
                Set<String> expected = new TreeSet<>();
                for (Map.Entry<String, Map<String, List<String>>> e : model.entrySet()) {
                    if ((scope == SearchScope.SUBTREE || e.getKey().endsWith("," + base))
                            && filter.getValue().test(e.getValue())) {
                        expected.add(e.getKey());
                    }
                }
                Set<String> found = Ldap.dns(ldap, base, scope, filter.getKey());
                found.removeAll(List.of(DirectoryServer.BASE, DirectoryServer.PEOPLE, UNIT_A, UNIT_B));
                if (!expected.equals(found)) {
                    Set<String> missing = new TreeSet<>(expected);
                    missing.removeAll(found);
                    Set<String> extra = new TreeSet<>(found);
                    extra.removeAll(expected);
                    mismatches.add(phase + ": " + filter.getKey() + " " + scope + " under " + base + ": expected "
                            + expected.size() + ", found " + found.size() + "; missing " + first(missing)
                            + ", unexpected " + first(extra));
                }
            }
        }
    }

    private static String first(Set<String> dns) {
        return dns.size() <= 3 ? dns.toString() : new ArrayList<>(dns).subList(0, 3) + " and " + (dns.size() - 3)
                + " more";
    }

    private static Map<String, Predicate<Map<String, List<String>>>> filters(
            Map<String, Map<String, List<String>>> model, Random random) {
        Map<String, Predicate<Map<String, List<String>>>> filters = new LinkedHashMap<>();
        for (Attr a : ATTRIBUTES) {
            for (int i = 0; i < 2; i++) {
                String low = probe(a, model, random);
                filters.put("(" + a.name + ">=" + low + ")", greaterOrEqual(a, low));
                String high = probe(a, model, random);
                filters.put("(" + a.name + "<=" + high + ")", lessOrEqual(a, high));
            }
            String value = probe(a, model, random);
            filters.put("(" + a.name + "=" + value + ")", any(a, v -> a.rule.compare(v, value) == 0));
            filters.put("(" + a.name + "=*)", attributes -> attributes.containsKey(a.name));
            String not = probe(a, model, random);
            filters.put("(!(" + a.name + ">=" + not + "))", greaterOrEqual(a, not).negate());
            if (a.rule.substrings) {
                String piece = piece(a, model, random);
                filters.put("(" + a.name + "=" + piece + "*)", substring(a, piece, 0));
                filters.put("(" + a.name + "=*" + piece + "*)", substring(a, piece, 1));
                filters.put("(" + a.name + "=*" + piece + ")", substring(a, piece, 2));
            }
        }
        for (int i = 0; i < 12; i++) {
            Attr a = ATTRIBUTES.get(random.nextInt(ATTRIBUTES.size()));
            Attr b = ATTRIBUTES.get(random.nextInt(ATTRIBUTES.size()));
            String v = probe(a, model, random);
            String w = probe(b, model, random);
            String other = probe(a, model, random);
            String low = a.rule.compare(v, other) <= 0 ? v : other;
            String high = low == v ? other : v;
            filters.put("(&(" + a.name + ">=" + low + ")(" + a.name + "<=" + high + "))",
                    greaterOrEqual(a, low).and(lessOrEqual(a, high)));
            filters.put("(&(" + a.name + "=" + v + ")(" + b.name + ">=" + w + "))",
                    any(a, x -> a.rule.compare(x, v) == 0).and(greaterOrEqual(b, w)));
            filters.put("(|(" + a.name + "<=" + v + ")(" + b.name + ">=" + w + "))",
                    lessOrEqual(a, v).or(greaterOrEqual(b, w)));
            filters.put("(&(objectClass=person)(!(|(" + a.name + ">=" + v + ")(" + b.name + "<=" + w + "))))",
                    greaterOrEqual(a, v).or(lessOrEqual(b, w)).negate());
        }
        return filters;
    }

    private static Predicate<Map<String, List<String>>> greaterOrEqual(Attr a, String asserted) {
        return any(a, v -> a.rule.compare(v, asserted) >= 0);
    }

    private static Predicate<Map<String, List<String>>> lessOrEqual(Attr a, String asserted) {
        return any(a, v -> a.rule.compare(v, asserted) <= 0);
    }

    /** Whether some value of {@code a} matches {@code test}. */
    private static Predicate<Map<String, List<String>>> any(Attr a, Predicate<String> test) {
        return attributes -> attributes.getOrDefault(a.name, List.of()).stream().anyMatch(test);
    }

    /** Initial (0), any (1) or final (2) substring {@code piece}, compared in the rule's form. */
    private static Predicate<Map<String, List<String>>> substring(Attr a, String piece, int where) {
        String p = a.rule.form(piece).toString();
        return any(a, v -> {
            String form = a.rule.form(v).toString();
            return where == 0 ? form.startsWith(p) : where == 1 ? form.contains(p) : form.endsWith(p);
        });
    }

    /** A value to compare with: an existing value of the attribute (in another case, maybe), or a new one. */
    private static String probe(Attr a, Map<String, Map<String, List<String>>> model, Random random) {
        if (random.nextBoolean()) {
            List<String> existing = existing(a, model);
            if (!existing.isEmpty()) {
                String value = existing.get(random.nextInt(existing.size()));
                return a.rule == Rule.CASE_IGNORE && random.nextBoolean() ? value.toUpperCase(Locale.ROOT) : value;
            }
        }
        return a.rule.value(random);
    }

    /** Two to four characters without spaces from an existing value of the attribute. */
    private static String piece(Attr a, Map<String, Map<String, List<String>>> model, Random random) {
        List<String> existing = existing(a, model);
        String value = existing.isEmpty() ? a.rule.value(random) : existing.get(random.nextInt(existing.size()));
        String compact = value.replace(" ", "");
        int length = Math.min(compact.length(), 2 + random.nextInt(3));
        int start = random.nextInt(compact.length() - length + 1);
        return compact.substring(start, start + length);
    }

    private static List<String> existing(Attr a, Map<String, Map<String, List<String>>> model) {
        List<String> values = new ArrayList<>();
        for (Map<String, List<String>> attributes : model.values()) {
            values.addAll(attributes.getOrDefault(a.name, List.of()));
        }
        return values;
    }
}
