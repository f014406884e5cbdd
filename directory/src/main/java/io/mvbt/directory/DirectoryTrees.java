// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.mvbt.cursor.IndexKey;
import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Tree;

/**
 * The trees of one directory and how their keys are made (docs/directory.md):
 * <pre>
 *   dir.master       id (8, big-endian)                 -> entry record ({@link EntryCodec})
 *   dir.parent       parent id (8) + normalized RDN     -> id (8); children of p are one key range
 *   dir.descendants  id (8)                             -> number of entries below it (8)
 *   dir.presence     IndexKey(attribute name, id)       -> empty
 *   dir.index.ATTR   IndexKey(normalized value, id)     -> empty
 *   dir.meta         "next-id", "suffix", "indexes"     -> next entry id, suffix DN, indexed attributes
 * </pre>
 * Reading methods take any view, so the same code resolves a DN in a write transaction and on a
 * search's snapshot.
 */
final class DirectoryTrees {
    static final String PREFIX = "dir.";
    static final String INDEX_PREFIX = PREFIX + "index.";
    final Tree master;
    final Tree parent;
    final Tree descendants;
    final Tree presence;
    final Tree meta;
    final Map<String, Tree> indexes;
    final Schema schema;
    final Dn suffix;
    final String normalizedSuffix;

    DirectoryTrees(Tree master, Tree parent, Tree descendants, Tree presence, Tree meta, Map<String, Tree> indexes,
            Schema schema, Dn suffix) {
        this.master = master;
        this.parent = parent;
        this.descendants = descendants;
        this.presence = presence;
        this.meta = meta;
        this.indexes = Map.copyOf(indexes);
        this.schema = schema;
        this.suffix = suffix;
        this.normalizedSuffix = suffix.normalized(schema);
    }

    static byte[] parentKey(long parentId, String normalizedRdn) {
        byte[] rdn = normalizedRdn.getBytes(StandardCharsets.UTF_8);
        byte[] key = new byte[8 + rdn.length];
        System.arraycopy(IndexKey.idKey(parentId), 0, key, 0, 8);
        System.arraycopy(rdn, 0, key, 8, rdn.length);
        return key;
    }

    static long readLong(byte[] bytes) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (bytes[i] & 0xFF);
        }
        return v;
    }

    /** The id of the entry named {@code dn} in {@code view}, or 0 if there is none. */
    long resolve(ReadView view, Dn dn) {
        if (dn.size() < suffix.size() || !dn.isWithin(suffix, schema)) {
            return 0;
        }
        byte[] id = view.get(parent, parentKey(0, normalizedSuffix));
        List<Rdn> rdns = dn.rdns();
        for (int i = rdns.size() - suffix.size() - 1; i >= 0 && id != null; i--) {
            id = view.get(parent, parentKey(readLong(id), rdns.get(i).normalized(schema)));
        }
        return id == null ? 0 : readLong(id);
    }

    /** The master record of {@code id}; a missing one means the trees disagree. */
    byte[] record(ReadView view, long id) {
        byte[] record = view.get(master, IndexKey.idKey(id));
        if (record == null) {
            throw new IllegalStateException("entry " + id + " is missing from the master tree at revision "
                    + view.revision());
        }
        return record;
    }

    long descendantsOf(ReadView view, long id) {
        byte[] count = view.get(descendants, IndexKey.idKey(id));
        return count == null ? 0 : readLong(count);
    }

    /** Ids from {@code id}'s parent up to the suffix entry. */
    List<Long> ancestors(ReadView view, long id) {
        List<Long> out = new ArrayList<>();
        long at = EntryCodec.parent(record(view, id));
        while (at != 0) {
            out.add(at);
            at = EntryCodec.parent(record(view, at));
        }
        return out;
    }

    /** The key of the entry's place in the parent tree, from its record. */
    byte[] parentKeyOf(EntryCodec.Record record) {
        return parentKey(record.parent(), Dn.parse(record.rdn()).normalized(schema));
    }

    /** Rebuilds DNs by walking up the parents on one view, remembering the parents seen. */
    final class DnResolver {
        private final ReadView view;
        private final Map<Long, Dn> known = new HashMap<>();

        DnResolver(ReadView view) {
            this.view = view;
        }

        Dn dnOf(EntryCodec.Record record) {
            if (record.parent() == 0) {
                return Dn.parse(record.rdn());
            }
            return parentDn(record.parent()).child(Rdn.parse(record.rdn()));
        }

        private Dn parentDn(long id) {
            Dn dn = known.get(id);
            if (dn == null) {
                dn = dnOf(EntryCodec.header(record(view, id)));
                known.put(id, dn);
            }
            return dn;
        }

        Entry entry(byte[] recordBytes) {
            EntryCodec.Record record = EntryCodec.decode(recordBytes);
            return Entry.ofDecoded(dnOf(record), record.attributes());
        }
    }
}
