// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import io.mvbt.directory.Entry;
import io.mvbt.directory.Schema;

/**
 * The benchmark's directory: exactly {@code total} entries below {@code dc=example,dc=com}, made
 * from a fixed seed so that every store (each in its own JVM) gets the same ones in the same order,
 * parents before children:
 * <pre>
 *   dc=example,dc=com
 *     ou=people   ou=unit0 .. ou=unit{U-1}, 1,000 people each: cn=user{i}
 *     ou=groups   cn=group{g}: groupOfNames, 5..20 member DNs
 *     ou=sites    ou=site0 .. ou=site9, each with ou=room0..4 and cn=printer{r} under rooms 0..3
 *     ou=churn    empty; the writer of the with-writer phases adds and deletes entries here
 * </pre>
 * A site is 10 entries (itself, 5 rooms, 4 printers), so its one-level and subtree searches have
 * exact sizes whatever the total. People carry objectClass (4 values), cn (2 values), sn, givenName,
 * uid, mail, employeeNumber (8 digits), telephoneNumber (1..3 values) and title.
 */
final class DirectoryData {
    static final String SUFFIX = "dc=example,dc=com";
    static final String PEOPLE = "ou=people," + SUFFIX;
    static final String GROUPS = "ou=groups," + SUFFIX;
    static final String SITES = "ou=sites," + SUFFIX;
    static final String CHURN = "ou=churn," + SUFFIX;
    static final int SITE_COUNT = 10;
    static final int SITE_SIZE = 10;
    static final int UNIT_SIZE = 1000;
    /** Entries that are neither people, units nor groups: the suffix, four branches and the sites. */
    static final int FIXED = 5 + SITE_COUNT * SITE_SIZE;
    private static final long SEED = 0x5EA2C4_2014L;

    private static final String[] SYLLABLES = {"ba", "co", "da", "el", "fi", "ga", "ho", "ir", "ja", "ka", "lo",
        "ma", "ne", "or", "pa", "qui", "ro", "sa", "ta", "ul", "ve", "wi", "xa", "yo", "ze"};
    private static final String[] SMITHS = {"Smith", "Smithson", "Smithers"};
    private static final String[] ANNS = {"Ann", "Anna", "Annabel", "Annette"};
    private static final String[] TITLES = {"Engineer", "Manager", "Analyst", "Director", "Clerk", "Architect"};

    final long total;
    final long units;
    final long groups;
    final long people;
    final Schema schema = schema();

    DirectoryData(long total) {
        if (total < FIXED + 100) {
            throw new IllegalArgumentException("the benchmark directory needs at least " + (FIXED + 100) + " entries");
        }
        this.total = total;
        this.groups = Math.max(1, total / 2000);
        long u = (total - FIXED - groups + UNIT_SIZE - 1) / UNIT_SIZE;
        // People fill what is left; a unit fewer may be enough once the units are counted.
        while (u > 1 && (total - FIXED - groups - (u - 1) + UNIT_SIZE - 1) / UNIT_SIZE <= u - 1) {
            u--;
        }
        this.units = u;
        this.people = total - FIXED - groups - units;
    }

    /** The directory's schema: the defaults, and employeeNumber indexed for the range filter. */
    static Schema schema() {
        return Schema.defaults().withIndex("employeeNumber");
    }

    /** Every entry, parents first. */
    void forEach(Consumer<Entry> sink) {
        sink.accept(Entry.builder(SUFFIX).add("objectClass", "top", "domain").add("dc", "example").build());
        sink.accept(ou(PEOPLE, "people"));
        sink.accept(ou(GROUPS, "groups"));
        sink.accept(ou(SITES, "sites"));
        sink.accept(ou(CHURN, "churn"));
        for (int s = 0; s < SITE_COUNT; s++) {
            String site = "ou=site" + s + "," + SITES;
            sink.accept(Entry.builder(site).add("objectClass", "top", "organizationalUnit").add("ou", "site" + s)
                    .add("l", "City " + s).build());
            for (int r = 0; r < 5; r++) {
                String room = "ou=room" + r + "," + site;
                sink.accept(Entry.builder(room).add("objectClass", "top", "organizationalUnit")
                        .add("ou", "room" + r).build());
                if (r < 4) {
                    sink.accept(Entry.builder("cn=printer" + r + "," + room).add("objectClass", "top", "device")
                            .add("cn", "printer" + r).add("serialNumber", "P-" + s + "-" + r).build());
                }
            }
        }
        for (long u = 0; u < units; u++) {
            sink.accept(ou("ou=unit" + u + "," + PEOPLE, "unit" + u));
        }
        for (long i = 0; i < people; i++) {
            sink.accept(person(i));
        }
        for (long g = 0; g < groups; g++) {
            sink.accept(group(g));
        }
    }

    static String personDn(long i) {
        return "cn=user" + i + ",ou=unit" + (i / UNIT_SIZE) + "," + PEOPLE;
    }

    Entry person(long i) {
        SplittableRandom rng = new SplittableRandom(SEED ^ (i * 0x9E3779B97F4A7C15L));
        // About 0.5% Smiths and 0.5% Anns, so the filters return thousands of a million, not half.
        String sn = rng.nextInt(200) == 0 ? SMITHS[rng.nextInt(SMITHS.length)] : name(rng, 3);
        String given = rng.nextInt(200) == 0 ? ANNS[rng.nextInt(ANNS.length)] : name(rng, 2);
        Entry.Builder b = Entry.builder(personDn(i))
                .add("objectClass", "top", "person", "organizationalPerson", "inetOrgPerson")
                .add("cn", "user" + i, given + " " + sn).add("sn", sn).add("givenName", given).add("uid", "u" + i)
                .add("mail", "user" + i + "@example.com")
                .add("employeeNumber", String.format(Locale.ROOT, "%08d", rng.nextLong(100_000_000L)))
                .add("title", TITLES[rng.nextInt(TITLES.length)]);
        int phones = 1 + rng.nextInt(3);
        for (int p = 0; p < phones; p++) {
            b.add("telephoneNumber", String.format(Locale.ROOT, "+1 555 %03d %04d", p, i % 10_000));
        }
        return b.build();
    }

    Entry group(long g) {
        SplittableRandom rng = new SplittableRandom(SEED ^ ~(g * 0x9E3779B97F4A7C15L));
        Entry.Builder b = Entry.builder("cn=group" + g + "," + GROUPS).add("objectClass", "top", "groupOfNames")
                .add("cn", "group" + g);
        int members = 5 + rng.nextInt(16);
        long first = rng.nextLong(people);
        for (int m = 0; m < members; m++) {
            b.add("member", personDn((first + m) % people));
        }
        return b.build();
    }

    /** The writer's k-th entry: a person that none of the benchmark's filters match. */
    static Entry churn(long k) {
        return Entry.builder("cn=churn" + k + "," + CHURN)
                .add("objectClass", "top", "person", "organizationalPerson", "inetOrgPerson")
                .add("cn", "churn" + k).add("sn", "Churn").add("givenName", "Zed").add("uid", "c" + k)
                .add("mail", "churn" + k + "@example.com").add("employeeNumber", "c" + k).build();
    }

    private static Entry ou(String dn, String name) {
        return Entry.builder(dn).add("objectClass", "top", "organizationalUnit").add("ou", name).build();
    }

    private static String name(SplittableRandom rng, int syllables) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < syllables; i++) {
            s.append(SYLLABLES[rng.nextInt(SYLLABLES.length)]);
        }
        s.setCharAt(0, Character.toUpperCase(s.charAt(0)));
        return s.toString();
    }
}
