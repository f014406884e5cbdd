// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.CorruptionException;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.PageWriter;
import io.mvbt.btree.TreeCursor;
import io.mvbt.btree.TreeEditor;
import io.mvbt.btree.TreeReader;
import io.mvbt.btree.TreeRoot;

/**
 * The catalog: a B+tree from tree name (UTF-8) to the tree's {@link TreeRoot} ({@value TreeRoot#BYTES}
 * bytes). Names starting with NUL are internal trees (the {@link Garbage} list). Its own root lives in the
 * meta page, beside the {@link FreshRoots} that supersede some of its entries. Creating or dropping a
 * tree is an edit of the catalog, so it commits (or aborts) atomically with the data.
 */
final class Catalog {
    private static final long BYTE_BASE = UNSAFE.arrayBaseOffset(byte[].class);

    private Catalog() {
    }

    /** The root of tree {@code key} in the catalog, or null. */
    static TreeRoot lookup(PageReader r, TreeRoot catalog, byte[] key) {
        long entry = TreeReader.findEntry(r, catalog.page, catalog.revision, catalog.depth, key, BYTE_BASE,
                key.length);
        if (entry == 0) {
            return null;
        }
        return read(r, entry);
    }

    private static TreeRoot read(PageReader r, long entry) {
        if (TreeReader.valueLength(entry) != TreeRoot.BYTES || TreeReader.isOverflow(entry)) {
            throw new CorruptionException(-1, "catalog entry of " + TreeReader.valueLength(entry)
                    + " bytes, expected " + TreeRoot.BYTES);
        }
        return new TreeRoot().readFrom(null, TreeReader.valueAddress(entry));
    }

    static void put(TreeEditor editor, PageWriter w, TreeRoot catalog, byte[] key, TreeRoot root, byte[] scratch) {
        root.writeTo(scratch, BYTE_BASE);
        editor.put(w, catalog, key, BYTE_BASE, key.length, scratch, BYTE_BASE, TreeRoot.BYTES);
    }

    static void delete(TreeEditor editor, PageWriter w, TreeRoot catalog, byte[] key) {
        editor.delete(w, catalog, key, BYTE_BASE, key.length);
    }

    /** Names of every user tree, in name order. */
    static List<String> names(PageReader r, TreeRoot catalog) {
        List<String> out = new ArrayList<>();
        for (Entry e : list(r, catalog, FreshRoots.NONE, false)) {
            out.add(e.name);
        }
        return out;
    }

    /**
     * Names and roots of every tree, with internal ones (names starting with NUL) if asked: the
     * fresh root of a tree in place of its older entry in the catalog.
     */
    static List<Entry> list(PageReader r, TreeRoot catalog, FreshRoots fresh, boolean internal) {
        List<Entry> out = new ArrayList<>();
        TreeCursor c = new TreeCursor().reset(r, catalog);
        for (boolean ok = c.first(); ok; ok = c.next()) {
            byte[] name = new byte[c.keyLength()];
            UNSAFE.copyMemory(null, c.keyAddress(), name, BYTE_BASE, name.length);
            if (!internal && name.length > 0 && name[0] == 0) {
                continue;
            }
            TreeRoot root = fresh.lookup(name);
            if (root == null) {
                root = read(r, c.entryAddress());
            }
            out.add(new Entry(new String(name, StandardCharsets.UTF_8), root));
        }
        return out;
    }

    /** A catalog entry. */
    static final class Entry {
        final String name;
        final TreeRoot root;

        Entry(String name, TreeRoot root) {
            this.name = name;
            this.root = root;
        }
    }
}
