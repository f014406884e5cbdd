// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import io.mvbt.KeyTooLargeException;
import io.mvbt.cursor.IndexKey;
import io.mvbt.cursor.Query;
import io.mvbt.cursor.QueryEvaluator;
import io.mvbt.cursor.Range;
import io.mvbt.cursor.RangeCursor;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * An LDAP-style entry store on one mvbt {@link Store}, below one suffix (naming context) such as
 * {@code dc=example,dc=com}. Every operation is one write transaction that changes the master
 * tree, the parent tree, the descendant counts and every index together, so a search never sees
 * half of it. Searches run on a snapshot: they never block writers and writers never disturb them.
 * Thread-safe: writes from many threads queue for the store's single writer, each for at most the
 * store's write timeout ({@link io.mvbt.WriteTimeoutException} after it).
 *
 * <pre>{@code
 * Directory dir = Directory.open(store, "dc=example,dc=com", Schema.defaults());
 * dir.add(Entry.builder("dc=example,dc=com").add("objectClass", "domain").build());
 * try (SearchResult r = dir.search("dc=example,dc=com", SearchScope.SUBTREE, "(cn=test*)")) {
 *     for (Entry e : r.entries()) { ... }
 * }
 * }</pre>
 */
public final class Directory {
    private static final byte[] NEXT_ID = "next-id".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SUFFIX = "suffix".getBytes(StandardCharsets.UTF_8);
    private static final byte[] INDEXES = "indexes".getBytes(StandardCharsets.UTF_8);
    private static final byte[] MATCHING = "matching".getBytes(StandardCharsets.UTF_8);

    private final Store store;
    private final DirectoryTrees trees;
    private final EntryIndexer indexer;
    private final FilterPlanner planner;
    private final AtomicLong searches = new AtomicLong();

    private Directory(Store store, DirectoryTrees trees) {
        this.store = store;
        this.trees = trees;
        this.indexer = new EntryIndexer(trees, store.maxKeySize());
        this.planner = new FilterPlanner(trees, store.maxKeySize());
    }

    public static Directory open(Store store, String suffix, Schema schema) {
        return open(store, Dn.parse(suffix), schema);
    }

    /**
     * Opens the directory kept in {@code store}, creating its trees on first use. An index the
     * schema names and the store lacks is built from the entries; one the store has and the schema
     * no longer names is dropped. A store holds one directory; its suffix cannot change.
     */
    public static Directory open(Store store, Dn suffix, Schema schema) {
        if (suffix.isRoot()) {
            throw new DirectoryException("the suffix must not be the empty DN");
        }
        try (WriteTxn tx = store.beginWrite()) {
            Tree meta = tx.createTreeIfAbsent(DirectoryTrees.PREFIX + "meta");
            checkMatching(tx, meta, schema);
            byte[] stored = tx.get(meta, SUFFIX);
            String normalized = suffix.normalized(schema);
            if (stored == null) {
                tx.put(meta, SUFFIX, normalized.getBytes(StandardCharsets.UTF_8));
                tx.put(meta, NEXT_ID, IndexKey.idKey(1));
            } else if (!new String(stored, StandardCharsets.UTF_8).equals(normalized)) {
                throw new DirectoryException("the store holds the directory of '" + new String(stored, StandardCharsets.UTF_8)
                        + "', not of '" + normalized + "'");
            }
            Tree master = tx.createTreeIfAbsent(DirectoryTrees.PREFIX + "master");
            Map<String, Tree> indexes = new HashMap<>();
            Set<String> built = new TreeSet<>();
            byte[] had = tx.get(meta, INDEXES);
            Set<String> previous = new TreeSet<>();
            if (had != null && had.length > 0) {
                previous.addAll(List.of(new String(had, StandardCharsets.UTF_8).split(",")));
            }
            for (String attribute : schema.indexed()) {
                indexes.put(attribute, tx.createTreeIfAbsent(DirectoryTrees.INDEX_PREFIX + attribute));
                if (!previous.contains(attribute)) {
                    built.add(attribute);
                }
            }
            for (String attribute : previous) {
                if (!schema.isIndexed(attribute)) {
                    tx.dropTree(store.tree(DirectoryTrees.INDEX_PREFIX + attribute));
                }
            }
            tx.put(meta, INDEXES, String.join(",", schema.indexed()).getBytes(StandardCharsets.UTF_8));
            DirectoryTrees trees = new DirectoryTrees(master, tx.createTreeIfAbsent(DirectoryTrees.PREFIX + "parent"),
                    tx.createTreeIfAbsent(DirectoryTrees.PREFIX + "descendants"),
                    tx.createTreeIfAbsent(DirectoryTrees.PREFIX + "presence"), meta, indexes, schema, suffix);
            if (!built.isEmpty()) {
                buildIndexes(tx, trees, built);
            }
            tx.commit();
            return new Directory(store, trees);
        }
    }

    /**
     * Refuses a schema whose matching rules differ from those the directory's keys were normalized
     * with: its lookups and index scans would miss the entries stored under the old forms. A
     * directory that recorded none yet (a new one, or one made before they were recorded) records them.
     */
    private static void checkMatching(WriteTxn tx, Tree meta, Schema schema) {
        String rules = schema.matchingRules();
        byte[] stored = tx.get(meta, MATCHING);
        if (stored == null) {
            tx.put(meta, MATCHING, rules.getBytes(StandardCharsets.UTF_8));
            return;
        }
        String recorded = new String(stored, StandardCharsets.UTF_8);
        if (!recorded.equals(rules)) {
            throw new DirectoryException("the directory's keys were normalized with the matching rules ["
                    + recorded + "], but the schema gives [" + rules + "]; open it with the same rules"
                    + " (attributes not listed match case-exactly), or rebuild it with the new ones");
        }
    }

    /** Indexes the existing entries' values of newly indexed attributes. */
    private static void buildIndexes(WriteTxn tx, DirectoryTrees trees, Set<String> attributes) {
        List<Object[]> work = new ArrayList<>();
        try (RangeCursor c = Range.over(tx, trees.master).cursor()) {
            while (c.next()) {
                work.add(new Object[] {c.key().getLong(0, ByteOrder.BIG_ENDIAN), c.valueBytes()});
            }
        }
        for (Object[] w : work) {
            EntryCodec.Record record = EntryCodec.decode((byte[]) w[1]);
            for (String attribute : attributes) {
                for (String v : record.attributes().getOrDefault(attribute, List.of())) {
                    try {
                        tx.put(trees.indexes.get(attribute), IndexKey.encode(
                                trees.schema.normalize(attribute, v).getBytes(StandardCharsets.UTF_8), (long) w[0]),
                                new byte[0]);
                    } catch (KeyTooLargeException e) {
                        throw new DirectoryException("cannot index '" + attribute + "': entry " + w[0] + " ('"
                                + record.rdn() + "') has a value too long for an index key (" + e.getMessage()
                                + "); nothing was changed", e);
                    }
                }
            }
        }
    }

    public Store store() {
        return store;
    }

    public Schema schema() {
        return trees.schema;
    }

    public Dn suffix() {
        return trees.suffix;
    }

    /** Entries in the directory, in O(1). */
    public long size() {
        try (Snapshot s = store.beginRead()) {
            return s.count(trees.master);
        }
    }

    // ---- writes -------------------------------------------------------------------------------

    /**
     * Adds {@code entry} and returns its id. Its parent must exist (the suffix entry needs none);
     * the values of its RDN are added to its attributes if missing; a value given twice (by the
     * attribute's matching rule) is an error.
     */
    public long add(Entry entry) {
        Dn dn = entry.dn();
        Map<String, List<String>> attributes = new LinkedHashMap<>();
        entry.attributes().forEach((name, values) -> attributes.put(name, new ArrayList<>()));
        entry.attributes().forEach((name, values) -> values.forEach(v -> addValue(attributes, name, v, dn)));
        for (Rdn.Ava ava : dn.isRoot() ? List.<Rdn.Ava>of() : dn.rdn().avas()) {
            if (!hasValue(attributes, ava.type(), ava.value())) {
                attributes.computeIfAbsent(ava.type(), a -> new ArrayList<>()).add(ava.value());
            }
        }
        indexer.checkIndexable(attributes);
        try (WriteTxn tx = store.beginWrite()) {
            long parent = parentOf(tx, dn);
            String rdnText = parent == 0 ? dn.toString() : dn.rdn().toString();
            checkReadsBack(rdnText, parent == 0 ? dn : dn.rdn(), parent == 0);
            byte[] parentKey = DirectoryTrees.parentKey(parent, parent == 0 ? trees.normalizedSuffix
                    : dn.rdn().normalized(trees.schema));
            checkKey(parentKey, dn);
            if (tx.contains(trees.parent, parentKey)) {
                throw new EntryExistsException("entry '" + dn + "' already exists");
            }
            long id = DirectoryTrees.readLong(tx.get(trees.meta, NEXT_ID));
            tx.put(trees.meta, NEXT_ID, IndexKey.idKey(id + 1));
            tx.put(trees.master, IndexKey.idKey(id), EntryCodec.encode(parent, rdnText, attributes));
            tx.put(trees.parent, parentKey, IndexKey.idKey(id));
            tx.put(trees.descendants, IndexKey.idKey(id), IndexKey.idKey(0));
            if (parent != 0) {
                adjustDescendants(tx, parent, 1);
            }
            indexer.change(tx, id, Map.of(), attributes);
            tx.commit();
            return id;
        }
    }

    /** Deletes the entry named {@code dn}; it must have no children. */
    public void delete(Dn dn) {
        try (WriteTxn tx = store.beginWrite()) {
            long id = existing(tx, dn);
            long children = childCount(tx, id);
            if (children > 0) {
                throw new DirectoryException("entry '" + dn + "' has " + children + " children; delete them first");
            }
            EntryCodec.Record record = EntryCodec.decode(trees.record(tx, id));
            indexer.change(tx, id, record.attributes(), Map.of());
            deleteParentKey(tx, trees.parentKeyOf(record), dn);
            tx.delete(trees.master, IndexKey.idKey(id));
            tx.delete(trees.descendants, IndexKey.idKey(id));
            if (record.parent() != 0) {
                adjustDescendants(tx, record.parent(), -1);
            }
            tx.commit();
        }
    }

    public void delete(String dn) {
        delete(Dn.parse(dn));
    }

    /** Applies {@code modifications} in order, all or none. The entry's RDN values cannot be removed. */
    public void modify(Dn dn, List<Modification> modifications) {
        try (WriteTxn tx = store.beginWrite()) {
            long id = existing(tx, dn);
            EntryCodec.Record record = EntryCodec.decode(trees.record(tx, id));
            Map<String, List<String>> after = copy(record.attributes());
            for (Modification m : modifications) {
                apply(after, m, dn);
            }
            for (Rdn.Ava ava : Dn.parse(record.rdn()).rdn().avas()) {
                if (!hasValue(after, ava.type(), ava.value())) {
                    throw new DirectoryException("cannot remove value '" + ava.value() + "' of '" + ava.type()
                            + "' from '" + dn + "': it is in the entry's RDN (rename the entry instead)");
                }
            }
            indexer.checkIndexable(after);
            indexer.change(tx, id, record.attributes(), after);
            tx.put(trees.master, IndexKey.idKey(id), EntryCodec.encode(record.parent(), record.rdn(), after));
            tx.commit();
        }
    }

    public void modify(String dn, Modification... modifications) {
        modify(Dn.parse(dn), List.of(modifications));
    }

    /** Renames the entry in place: see {@link #move(Dn, Dn, Rdn, boolean)}. */
    public void rename(Dn dn, Rdn newRdn, boolean deleteOldRdn) {
        move(dn, dn.parent(), newRdn, deleteOldRdn);
    }

    /**
     * Moves the entry named {@code dn}, with everything below it, under {@code newParent}, named
     * {@code newRdn}. The new RDN's values are added to the entry; {@code deleteOldRdn} removes the
     * old RDN's values that the new one does not keep. Only the entry's own records change: the
     * entries below it store their parent's id, not their DN.
     */
    public void move(Dn dn, Dn newParent, Rdn newRdn, boolean deleteOldRdn) {
        try (WriteTxn tx = store.beginWrite()) {
            long id = existing(tx, dn);
            EntryCodec.Record record = EntryCodec.decode(trees.record(tx, id));
            if (record.parent() == 0) {
                throw new DirectoryException("the suffix entry '" + dn + "' cannot be moved or renamed");
            }
            Dn target = newParent.child(newRdn);
            checkReadsBack(newRdn.toString(), newRdn, false);
            long parent = trees.resolve(tx, newParent);
            if (parent == 0) {
                throw new NoSuchEntryException("new parent '" + newParent + "' of '" + dn + "' does not exist");
            }
            if (parent == id || trees.ancestors(tx, parent).contains(id)) {
                throw new DirectoryException("cannot move '" + dn + "' below itself ('" + newParent + "')");
            }
            byte[] oldKey = trees.parentKeyOf(record);
            byte[] newKey = DirectoryTrees.parentKey(parent, newRdn.normalized(trees.schema));
            checkKey(newKey, target);
            if (!java.util.Arrays.equals(oldKey, newKey) && tx.contains(trees.parent, newKey)) {
                throw new EntryExistsException("entry '" + target + "' already exists");
            }
            Map<String, List<String>> after = copy(record.attributes());
            Rdn oldRdn = Dn.parse(record.rdn()).rdn();
            if (deleteOldRdn) {
                for (Rdn.Ava ava : oldRdn.avas()) {
                    boolean kept = newRdn.avas().stream().anyMatch(n -> n.type().equals(ava.type())
                            && trees.schema.normalize(n.type(), n.value()).equals(
                                    trees.schema.normalize(ava.type(), ava.value())));
                    if (!kept) {
                        removeValue(after, ava.type(), ava.value());
                    }
                }
            }
            for (Rdn.Ava ava : newRdn.avas()) {
                if (!hasValue(after, ava.type(), ava.value())) {
                    after.computeIfAbsent(ava.type(), a -> new ArrayList<>()).add(ava.value());
                }
            }
            indexer.checkIndexable(after);
            long moved = 1 + trees.descendantsOf(tx, id);
            if (parent != record.parent()) {
                adjustDescendants(tx, record.parent(), -moved);
                adjustDescendants(tx, parent, moved);
            }
            indexer.change(tx, id, record.attributes(), after);
            deleteParentKey(tx, oldKey, dn);
            tx.put(trees.parent, newKey, IndexKey.idKey(id));
            tx.put(trees.master, IndexKey.idKey(id), EntryCodec.encode(parent, newRdn.toString(), after));
            tx.commit();
        }
    }

    // ---- reads --------------------------------------------------------------------------------

    /** The entry named {@code dn} in the newest revision, or null. */
    public Entry lookup(Dn dn) {
        try (Snapshot s = store.beginRead()) {
            long id = trees.resolve(s, dn);
            return id == 0 ? null : trees.new DnResolver(s).entry(trees.record(s, id));
        }
    }

    public Entry lookup(String dn) {
        return lookup(Dn.parse(dn));
    }

    /**
     * Searches below {@code base} on a new snapshot of the newest revision. The result holds the
     * snapshot: read it (cursor, pages) and close it. A missing base is {@link NoSuchEntryException}.
     */
    public SearchResult search(Dn base, SearchScope scope, Filter filter) {
        Snapshot snapshot = store.beginRead();
        try {
            long baseId = trees.resolve(snapshot, base);
            if (baseId == 0) {
                throw new NoSuchEntryException("search base '" + base + "' does not exist");
            }
            Query query = planner.plan(filter);
            QueryEvaluator evaluator = new QueryEvaluator(snapshot, trees.master,
                    new ScopeCandidates(snapshot, trees, baseId, base, scope));
            QueryEvaluator.Evaluation evaluation = evaluator.evaluate(query);
            return new SearchResult(searches.incrementAndGet(), snapshot, trees, filter, evaluation);
        } catch (RuntimeException | Error e) {
            snapshot.close();
            throw e;
        }
    }

    public SearchResult search(String base, SearchScope scope, String filter) {
        return search(Dn.parse(base), scope, Filter.parse(filter));
    }

    /** Children of the entry named {@code dn}, in O(log n). */
    public long childCount(Dn dn) {
        try (Snapshot s = store.beginRead()) {
            return childCount(s, existing(s, dn));
        }
    }

    /** Entries below the entry named {@code dn} (not counting it), in O(log n). */
    public long descendantCount(Dn dn) {
        try (Snapshot s = store.beginRead()) {
            return trees.descendantsOf(s, existing(s, dn));
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    private long childCount(io.mvbt.revisions.ReadView view, long id) {
        byte[] prefix = IndexKey.idKey(id);
        return view.countRange(trees.parent, prefix, IndexKey.prefixEnd(prefix));
    }

    private long existing(io.mvbt.revisions.ReadView view, Dn dn) {
        long id = trees.resolve(view, dn);
        if (id == 0) {
            throw new NoSuchEntryException("entry '" + dn + "' does not exist");
        }
        return id;
    }

    /** The parent id of a new entry: 0 for the suffix entry, else its parent's id (which must exist). */
    private long parentOf(WriteTxn tx, Dn dn) {
        if (dn.size() < trees.suffix.size() || !dn.isWithin(trees.suffix, trees.schema)) {
            throw new DirectoryException("'" + dn + "' is not within the suffix '" + trees.suffix + "'");
        }
        if (dn.size() == trees.suffix.size()) {
            return 0;
        }
        long parent = trees.resolve(tx, dn.parent());
        if (parent == 0) {
            throw new NoSuchEntryException("parent '" + dn.parent() + "' of '" + dn + "' does not exist");
        }
        return parent;
    }

    /**
     * Refuses a name whose stored text would not read back as the same name: every later operation
     * parses that text again (an RDN built in code, say with a value of unpaired surrogates).
     */
    private static void checkReadsBack(String text, Object name, boolean wholeDn) {
        Object back;
        try {
            back = wholeDn ? Dn.parse(text) : Rdn.parse(text);
        } catch (SyntaxException e) {
            back = null;
        }
        if (!name.equals(back)) {
            throw new IllegalArgumentException("'" + text + "' cannot be stored: it reads back as "
                    + (back == null ? "no valid name" : "'" + back + "'"));
        }
    }

    /** Deletes an entry's key in the parent tree, which must be there: else the directory is inconsistent. */
    private void deleteParentKey(WriteTxn tx, byte[] key, Dn dn) {
        if (!tx.delete(trees.parent, key)) {
            throw new DirectoryException("the directory is inconsistent: the parent-tree key of '" + dn
                    + "' is missing; nothing was changed");
        }
    }

    private void checkKey(byte[] parentKey, Dn dn) {
        if (parentKey.length > store.maxKeySize()) {
            throw new DirectoryException("the RDN of '" + dn + "' is too long: " + (parentKey.length - 8)
                    + " bytes normalized, the limit is " + (store.maxKeySize() - 8));
        }
    }

    /** Adds {@code delta} to the descendant count of {@code id} and of each of its ancestors. */
    private void adjustDescendants(WriteTxn tx, long id, long delta) {
        for (long at = id; at != 0; at = EntryCodec.parent(trees.record(tx, at))) {
            byte[] key = IndexKey.idKey(at);
            tx.put(trees.descendants, key, IndexKey.idKey(trees.descendantsOf(tx, at) + delta));
        }
    }

    private static Map<String, List<String>> copy(Map<String, List<String>> attributes) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        attributes.forEach((name, values) -> out.put(name, new ArrayList<>(values)));
        return out;
    }

    private boolean hasValue(Map<String, List<String>> attributes, String name, String value) {
        String n = trees.schema.normalize(name, value);
        for (String v : attributes.getOrDefault(name, List.of())) {
            if (trees.schema.normalize(name, v).equals(n)) {
                return true;
            }
        }
        return false;
    }

    private void addValue(Map<String, List<String>> attributes, String name, String value, Dn dn) {
        if (hasValue(attributes, name, value)) {
            throw new DirectoryException("attribute '" + name + "' of '" + dn + "' already has value '" + value + "'"
                    + (trees.schema.matching(name) == Matching.CASE_IGNORE ? " (values compare ignoring case)" : ""));
        }
        attributes.computeIfAbsent(name, a -> new ArrayList<>()).add(value);
    }

    private boolean removeValue(Map<String, List<String>> attributes, String name, String value) {
        List<String> values = attributes.get(name);
        if (values == null) {
            return false;
        }
        String n = trees.schema.normalize(name, value);
        boolean removed = values.removeIf(v -> trees.schema.normalize(name, v).equals(n));
        if (values.isEmpty()) {
            attributes.remove(name);
        }
        return removed;
    }

    private void apply(Map<String, List<String>> attributes, Modification m, Dn dn) {
        switch (m.op()) {
            case ADD -> {
                if (m.values().isEmpty()) {
                    throw new DirectoryException("adding to '" + m.attribute() + "' of '" + dn + "' needs values");
                }
                attributes.computeIfAbsent(m.attribute(), a -> new ArrayList<>());
                for (String v : m.values()) {
                    addValue(attributes, m.attribute(), v, dn);
                }
            }
            case DELETE -> {
                if (!attributes.containsKey(m.attribute())) {
                    throw new DirectoryException("entry '" + dn + "' has no attribute '" + m.attribute() + "'");
                }
                if (m.values().isEmpty()) {
                    attributes.remove(m.attribute());
                }
                for (String v : m.values()) {
                    if (!removeValue(attributes, m.attribute(), v)) {
                        throw new DirectoryException("attribute '" + m.attribute() + "' of '" + dn
                                + "' has no value '" + v + "'");
                    }
                }
            }
            case REPLACE -> {
                attributes.remove(m.attribute());
                if (!m.values().isEmpty()) {
                    attributes.put(m.attribute(), new ArrayList<>());
                    for (String v : m.values()) {
                        addValue(attributes, m.attribute(), v, dn);
                    }
                }
            }
        }
    }
}
