// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.mvbt.revisions.Store;
import io.mvbt.testkit.Profile;

/**
 * Random adds, deletes, modifies and moves against a model of the entries; random filters and
 * scopes checked against a brute-force evaluation over the model (written independently of the
 * directory's matcher: substrings as regular expressions), reading the result forward, backward
 * and in pages. Some results are kept open across later writes and checked at the end against the
 * model as it was at their revision. Seeds: {@code -Dmvbt.dir.seeds=N}, one with {@code -Dmvbt.dir.seed=S}.
 */
class DirectoryModelTest {
    private static final String SUFFIX = "o=model";
    private static final String[] WORDS = {"a", "ab", "abc", "B", "ba", "b a", "c", "Ca", "x0", "", "zz"};
    private static final String[] ATTRIBUTES = {"cn", "sn", "description", "employeenumber", "ou"};
    private final Schema schema = Schema.defaults().withIndex("ou");

    /** A model entry: its id, parent id (0 for the suffix), DN, and attributes. */
    private record Model(long id, long parent, Dn dn, Map<String, List<String>> attributes) {
    }

    @Test
    void searchesAgreeWithBruteForceOverTheModel() {
        long only = Long.getLong("mvbt.dir.seed", -1);
        int seeds = Integer.getInteger("mvbt.dir.seeds", Profile.isLong() ? 200 : 12);
        for (long seed = only >= 0 ? only : 1; seed <= (only >= 0 ? only : seeds); seed++) {
            try {
                run(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + " failed (replay with -Dmvbt.dir.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
    }

    private static String word(Random r) {
        String w = WORDS[r.nextInt(WORDS.length)];
        return w.isEmpty() ? "e" : w;
    }

    private void run(long seed) {
        Random random = new Random(seed);
        try (Store store = Store.inMemory()) {
            Directory dir = Directory.open(store, SUFFIX, schema);
            TreeMap<Long, Model> model = new TreeMap<>();
            Entry suffix = Entry.builder(SUFFIX).add("objectClass", "organization").build();
            long root = dir.add(suffix);
            model.put(root, new Model(root, 0, Dn.parse(SUFFIX), added(suffix)));
            List<Object[]> held = new ArrayList<>();
            int serial = 0;
            for (int step = 0; step < 400; step++) {
                int op = random.nextInt(10);
                List<Model> all = new ArrayList<>(model.values());
                Model some = all.get(random.nextInt(all.size()));
                if (op < 4 || model.size() < 5) {
                    Dn dn = some.dn().child(new Rdn("cn", "n" + serial++ + " " + word(random)));
                    Entry.Builder b = Entry.builder(dn).add("objectClass", random.nextBoolean() ? "person" : "device");
                    for (String attribute : ATTRIBUTES) {
                        if (random.nextInt(3) > 0) {
                            for (String v : distinct(random, attribute)) {
                                b.add(attribute, v);
                            }
                        }
                    }
                    Entry entry = b.build();
                    long id = dir.add(entry);
                    model.put(id, new Model(id, some.id(), dn, added(entry)));
                } else if (op < 6) {
                    boolean leaf = model.values().stream().noneMatch(m -> m.parent() == some.id());
                    if (leaf && some.parent() != 0) {
                        dir.delete(some.dn());
                        model.remove(some.id());
                    }
                } else if (op < 8) {
                    String attribute = ATTRIBUTES[random.nextInt(ATTRIBUTES.length)];
                    List<String> values = distinct(random, attribute);
                    Map<String, List<String>> after = copyAttributes(some.attributes());
                    after.remove(attribute);
                    if (!values.isEmpty()) {
                        after.put(attribute, new ArrayList<>(values));
                    }
                    Modification replace = Modification.replace(attribute, values.toArray(new String[0]));
                    if (some.dn().rdn().avas().stream().allMatch(a -> has(after, a.type(), a.value()))) {
                        dir.modify(some.dn(), List.of(replace));
                        model.put(some.id(), new Model(some.id(), some.parent(), some.dn(), after));
                    } else {
                        // The replacement drops a value of the entry's RDN: refused, nothing changed.
                        DirectoryException e = assertThrows(DirectoryException.class,
                                () -> dir.modify(some.dn(), List.of(replace)));
                        assertTrue(e.getMessage().contains("RDN"), e.getMessage());
                    }
                } else if (some.parent() != 0) {
                    Model to = all.get(random.nextInt(all.size()));
                    Rdn rdn = new Rdn("cn", "m" + serial++);
                    boolean deleteOldRdn = random.nextBoolean();
                    try {
                        dir.move(some.dn(), to.dn(), rdn, deleteOldRdn);
                        relocate(model, some.id(), to.id(), to.dn().child(rdn));
                        Map<String, List<String>> after = copyAttributes(some.attributes());
                        if (deleteOldRdn) {
                            for (Rdn.Ava old : some.dn().rdn().avas()) {
                                boolean kept = rdn.avas().stream().anyMatch(n -> n.type().equals(old.type())
                                        && schema.normalize(n.type(), n.value()).equals(schema.normalize(old.type(), old.value())));
                                if (!kept) {
                                    remove(after, old.type(), old.value());
                                }
                            }
                        }
                        for (Rdn.Ava ava : rdn.avas()) {
                            addIfAbsent(after, ava.type(), ava.value());
                        }
                        Model moved = model.get(some.id());
                        model.put(moved.id(), new Model(moved.id(), moved.parent(), moved.dn(), after));
                    } catch (DirectoryException e) {
                        assertTrue(e.getMessage().contains("below itself"), e.getMessage());
                    }
                }
                if (step % 16 == 0) {
                    // Every entry as the model has it, read back one by one.
                    for (Model m : model.values()) {
                        assertEquals(m.attributes(), dir.lookup(m.dn()).attributes(), m.dn().toString());
                    }
                }
                if (step % 4 == 0) {
                    SearchResult r = search(dir, model, random);
                    if (random.nextInt(8) == 0) {
                        held.add(new Object[] {r, copy(model)});
                    } else {
                        r.close();
                    }
                }
            }
            for (Object[] h : held) {
                @SuppressWarnings("unchecked")
                TreeMap<Long, Model> then = (TreeMap<Long, Model>) h[1];
                try (SearchResult r = (SearchResult) h[0]) {
                    checkEntries(r, then);
                }
            }
            assertTrue(store.check().ok());
        }
    }

    private List<String> distinct(Random random, String attribute) {
        List<String> values = new ArrayList<>();
        List<String> normalized = new ArrayList<>();
        for (int i = random.nextInt(3); i >= 0; i--) {
            String v = word(random);
            if (!normalized.contains(schema.normalize(attribute, v))) {
                values.add(v);
                normalized.add(schema.normalize(attribute, v));
            }
        }
        return values;
    }

    /**
     * The model's own reading of an add: the entry's values as given, then each value of its RDN
     * that is not there already (compared in normalized form).
     */
    private Map<String, List<String>> added(Entry entry) {
        Map<String, List<String>> attributes = copyAttributes(entry.attributes());
        for (Rdn.Ava ava : entry.dn().rdn().avas()) {
            addIfAbsent(attributes, ava.type(), ava.value());
        }
        return attributes;
    }

    private boolean has(Map<String, List<String>> attributes, String name, String value) {
        String n = schema.normalize(name, value);
        return attributes.getOrDefault(name, List.of()).stream().anyMatch(v -> schema.normalize(name, v).equals(n));
    }

    private void addIfAbsent(Map<String, List<String>> attributes, String name, String value) {
        if (!has(attributes, name, value)) {
            attributes.computeIfAbsent(name, a -> new ArrayList<>()).add(value);
        }
    }

    private void remove(Map<String, List<String>> attributes, String name, String value) {
        String n = schema.normalize(name, value);
        List<String> values = attributes.get(name);
        if (values != null && values.removeIf(v -> schema.normalize(name, v).equals(n)) && values.isEmpty()) {
            attributes.remove(name);
        }
    }

    private static Map<String, List<String>> copyAttributes(Map<String, List<String>> attributes) {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        attributes.forEach((name, values) -> copy.put(name, new ArrayList<>(values)));
        return copy;
    }

    private static void relocate(TreeMap<Long, Model> model, long id, long parent, Dn dn) {
        Model m = model.get(id);
        model.put(id, new Model(id, parent, dn, m.attributes()));
        for (Model child : new ArrayList<>(model.values())) {
            if (child.parent() == id) {
                relocate(model, child.id(), id, dn.child(child.dn().rdn()));
            }
        }
    }

    private static TreeMap<Long, Model> copy(TreeMap<Long, Model> model) {
        return new TreeMap<>(model);
    }

    private SearchResult search(Directory dir, TreeMap<Long, Model> model, Random random) {
        List<Model> all = new ArrayList<>(model.values());
        Model base = random.nextInt(3) == 0 ? model.firstEntry().getValue() : all.get(random.nextInt(all.size()));
        SearchScope scope = SearchScope.values()[random.nextInt(3)];
        Filter filter = Filter.parse(randomFilter(random, 3).toString());
        SearchResult r = dir.search(base.dn(), scope, filter);
        List<Long> expected = new ArrayList<>();
        for (Model m : model.values()) {
            if (inScope(model, m, base, scope) && matches(filter, m.attributes())) {
                expected.add(m.id());
            }
        }
        List<Long> actual = new ArrayList<>();
        for (long id : r.ids().toArray()) {
            actual.add(id);
        }
        assertEquals(expected, actual, filter + " " + scope + " of " + base.dn() + "\n" + r.plan());
        assertEquals(r.count(), r.plan().actual());
        checkEntries(r, model);
        return r;
    }

    /** Forward, backward and paged reads all give the model's entries, in id order. */
    private static void checkEntries(SearchResult r, TreeMap<Long, Model> model) {
        List<Entry> forward = new ArrayList<>();
        List<Entry> backward = new ArrayList<>();
        try (EntryCursor c = r.cursor()) {
            while (c.next()) {
                Model m = model.get(c.id());
                Entry e = c.entry();
                assertEquals(m.dn().normalized(Schema.defaults().withIndex("ou")),
                        e.dn().normalized(Schema.defaults().withIndex("ou")));
                assertEquals(m.attributes(), e.attributes());
                forward.add(e);
            }
            while (c.prev()) {
                backward.add(0, c.entry());
            }
        }
        assertEquals(forward, backward);
        List<Entry> paged = new ArrayList<>();
        SearchResult.Page page = r.page(3);
        while (true) {
            paged.addAll(page.entries());
            assertEquals(r.count(), page.total());
            if (page.isLast()) {
                break;
            }
            page = r.page(page.next(), 3);
        }
        assertEquals(forward, paged);
    }

    private static boolean inScope(TreeMap<Long, Model> model, Model m, Model base, SearchScope scope) {
        switch (scope) {
            case OBJECT:
                return m.id() == base.id();
            case ONELEVEL:
                return m.parent() == base.id();
            default:
                for (long at = m.id(); at != 0; at = model.get(at).parent()) {
                    if (at == base.id()) {
                        return true;
                    }
                }
                return false;
        }
    }

    private Filter randomFilter(Random random, int depth) {
        int kind = random.nextInt(depth > 0 ? 9 : 6);
        String attribute = random.nextInt(8) == 0 ? "objectclass" : ATTRIBUTES[random.nextInt(ATTRIBUTES.length)];
        String value = word(random);
        switch (kind) {
            case 0: return new Filter.Equality(attribute, random.nextInt(4) == 0 ? value.toUpperCase() : value);
            case 1: return new Filter.Presence(attribute);
            case 2: return new Filter.Substring(attribute, random.nextBoolean() ? value.substring(0, 1) : null,
                    random.nextBoolean() ? List.of(word(random).substring(0, 1)) : List.of(),
                    random.nextBoolean() ? word(random) : null);
            case 3: return new Filter.GreaterOrEqual(attribute, value);
            case 4: return new Filter.LessOrEqual(attribute, value);
            case 5: return new Filter.Equality("cn", "n" + random.nextInt(40) + " " + value);
            case 6: return new Filter.Not(randomFilter(random, depth - 1));
            default:
                List<Filter> children = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    children.add(randomFilter(random, depth - 1));
                }
                return kind == 7 ? new Filter.And(children) : new Filter.Or(children);
        }
    }

    /** Brute force, written apart from FilterMatcher: substrings as regular expressions. */
    private boolean matches(Filter f, Map<String, List<String>> attributes) {
        if (f instanceof Filter.And and) {
            return and.children().stream().allMatch(c -> matches(c, attributes));
        }
        if (f instanceof Filter.Or or) {
            return or.children().stream().anyMatch(c -> matches(c, attributes));
        }
        if (f instanceof Filter.Not not) {
            return !matches(not.child(), attributes);
        }
        if (f instanceof Filter.Presence p) {
            return attributes.containsKey(p.attribute());
        }
        String attribute = FilterMatcher.attributeOf(f);
        for (String raw : attributes.getOrDefault(attribute, List.of())) {
            String v = schema.normalize(attribute, raw);
            boolean hit;
            if (f instanceof Filter.Equality eq) {
                hit = v.equals(schema.normalize(attribute, eq.value()));
            } else if (f instanceof Filter.GreaterOrEqual ge) {
                hit = v.compareTo(schema.normalize(attribute, ge.value())) >= 0;
            } else if (f instanceof Filter.LessOrEqual le) {
                hit = v.compareTo(schema.normalize(attribute, le.value())) <= 0;
            } else {
                Filter.Substring s = (Filter.Substring) f;
                StringBuilder regex = new StringBuilder();
                regex.append(s.initial() == null ? "" : Pattern.quote(schema.normalize(attribute, s.initial())));
                regex.append(".*");
                for (String a : s.any()) {
                    regex.append(Pattern.quote(schema.normalize(attribute, a))).append(".*");
                }
                regex.append(s.last() == null ? "" : Pattern.quote(schema.normalize(attribute, s.last())));
                hit = Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(v).matches();
            }
            if (hit) {
                return true;
            }
        }
        return false;
    }

    static Map<String, List<String>> attributesOf(Entry e) {
        return new LinkedHashMap<>(e.attributes());
    }
}
