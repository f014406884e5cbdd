// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * Random histories for the backup tests (puts, deletes, range deletes, values in overflow pages,
 * trees created and dropped) and the contents of a store as plain maps, to compare key by key.
 */
final class BackupHistories {
    private static final List<String> TREES = List.of("a", "b", "c", "d");

    private BackupHistories() {
    }

    /** One increment's worth of changes, in a few commits. */
    static void change(Store store, Random random, int operations) {
        for (int commit = 0; commit < 3; commit++) {
            try (WriteTxn tx = store.beginWrite()) {
                for (int i = 0; i < operations / 3; i++) {
                    String name = TREES.get(random.nextInt(TREES.size()));
                    Tree tree = store.tree(name);
                    int op = random.nextInt(100);
                    if (!tx.hasTree(tree)) {
                        tx.createTree(name);
                    } else if (op < 1 && !name.equals("a")) {
                        tx.dropTree(tree);
                    } else if (op < 4) {
                        byte[] from = key(random);
                        byte[] to = key(random);
                        if (java.util.Arrays.compareUnsigned(from, to) > 0) {
                            byte[] t = from;
                            from = to;
                            to = t;
                        }
                        tx.deleteRange(tree, from, to);
                    } else if (op < 30) {
                        tx.delete(tree, key(random));
                    } else {
                        tx.put(tree, key(random), value(random));
                    }
                }
                tx.commit();
            }
        }
    }

    static byte[] key(Random random) {
        byte[] k = new byte[1 + random.nextInt(12)];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (i == 0 ? random.nextInt(40) : random.nextInt(256));
        }
        return k;
    }

    static byte[] value(Random random) {
        int length = random.nextInt(20) == 0 ? 3_000 + random.nextInt(30_000) : random.nextInt(60);
        byte[] v = new byte[length];
        random.nextBytes(v);
        return v;
    }

    /** Every tree of the newest revision: name to (hex key to hex value). */
    static TreeMap<String, TreeMap<String, String>> contents(Path file) {
        try (Store store = Store.openReadOnly(file); Snapshot s = store.beginRead()) {
            return contents(store, s);
        }
    }

    static TreeMap<String, TreeMap<String, String>> contents(Store store, Snapshot s) {
        HexFormat hex = HexFormat.of();
        TreeMap<String, TreeMap<String, String>> out = new TreeMap<>();
        for (String name : s.treeNames()) {
            TreeMap<String, String> entries = new TreeMap<>();
            try (Cursor c = s.cursor(store.tree(name))) {
                for (boolean more = c.first(); more; more = c.next()) {
                    entries.put(hex.formatHex(c.keyBytes()), hex.formatHex(c.valueBytes()));
                }
            }
            out.put(name, entries);
        }
        return out;
    }
}
