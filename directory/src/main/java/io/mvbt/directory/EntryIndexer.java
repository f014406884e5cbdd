// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.mvbt.cursor.IndexKey;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * Keeps the presence index and the attribute indexes in step with an entry, inside the writer's
 * transaction: an add indexes every (attribute, normalized value), a delete removes them, a modify
 * or rename changes only the difference.
 */
final class EntryIndexer {
    private static final byte[] EMPTY = new byte[0];
    private final DirectoryTrees trees;
    private final int maxKeySize;

    EntryIndexer(DirectoryTrees trees, int maxKeySize) {
        this.trees = trees;
        this.maxKeySize = maxKeySize;
    }

    /** The index keys of an entry: "attribute\0normalized value" for indexed attributes. */
    private Set<String> indexedValues(Map<String, List<String>> attributes) {
        Set<String> out = new LinkedHashSet<>();
        attributes.forEach((name, values) -> {
            if (trees.indexes.containsKey(name)) {
                for (String v : values) {
                    out.add(name + '\0' + trees.schema.normalize(name, v));
                }
            }
        });
        return out;
    }

    /** Refuses values whose index keys would not fit in a page, before anything is written. */
    void checkIndexable(Map<String, List<String>> attributes) {
        for (String nameAndValue : indexedValues(attributes)) {
            int cut = nameAndValue.indexOf('\0');
            byte[] value = nameAndValue.substring(cut + 1).getBytes(StandardCharsets.UTF_8);
            int length = IndexKey.encodedLength(value);
            if (length > maxKeySize) {
                throw new DirectoryException("a value of indexed attribute '" + nameAndValue.substring(0, cut) + "' is "
                        + value.length + " bytes; indexed values are limited to " + (maxKeySize - IndexKey.OVERHEAD)
                        + " bytes with this page size");
            }
        }
    }

    void change(WriteTxn tx, long id, Map<String, List<String>> before, Map<String, List<String>> after) {
        Set<String> old = indexedValues(before);
        Set<String> now = indexedValues(after);
        for (String nv : old) {
            if (!now.contains(nv)) {
                tx.delete(indexOf(nv), key(nv, id));
            }
        }
        for (String nv : now) {
            if (!old.contains(nv)) {
                tx.put(indexOf(nv), key(nv, id), EMPTY);
            }
        }
        for (String name : before.keySet()) {
            if (!after.containsKey(name)) {
                tx.delete(trees.presence, IndexKey.encode(name.getBytes(StandardCharsets.UTF_8), id));
            }
        }
        for (String name : after.keySet()) {
            if (!before.containsKey(name)) {
                tx.put(trees.presence, IndexKey.encode(name.getBytes(StandardCharsets.UTF_8), id), EMPTY);
            }
        }
    }

    private Tree indexOf(String nameAndValue) {
        return trees.indexes.get(nameAndValue.substring(0, nameAndValue.indexOf('\0')));
    }

    private static byte[] key(String nameAndValue, long id) {
        return IndexKey.encode(nameAndValue.substring(nameAndValue.indexOf('\0') + 1).getBytes(StandardCharsets.UTF_8),
                id);
    }
}
