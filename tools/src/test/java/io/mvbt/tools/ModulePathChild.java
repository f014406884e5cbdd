// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.mvbt.MvbtException;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * Run by {@link ModulePathTest} in a JVM whose mvbt jars are on the module path: checks what the
 * module descriptors export and uses a store; prints "ok", or the first thing that is wrong.
 */
public final class ModulePathChild {
    private ModulePathChild() {
    }

    public static void main(String[] args) throws Exception {
        Module store = Store.class.getModule();
        Module pages = MvbtException.class.getModule();
        Module btree = ModuleLayer.boot().findModule("io.mvbt.btree").orElseThrow();
        check("io.mvbt.revisions".equals(store.getName()), "Store is in module " + store);
        check("io.mvbt.pagestore".equals(pages.getName()), "MvbtException is in module " + pages);
        check(store.isExported("io.mvbt.revisions"), "the store's API is exported");
        check(pages.isExported("io.mvbt") && pages.isExported("io.mvbt.pagestore"),
                "the exceptions and the page store interfaces are exported");
        check(!pages.isExported("io.mvbt.pagestore.local") && pages.isExported("io.mvbt.pagestore.local", store),
                "the file and memory page stores are exported to the store alone");
        check(!btree.isExported("io.mvbt.btree") && btree.isExported("io.mvbt.btree", store),
                "the tree is exported to the store (and cursors) alone");
        try {
            Class.forName("io.mvbt.pagestore.local.MemoryPageStore").getConstructor(int.class).newInstance(4096);
            check(false, "an internal class was usable from outside");
        } catch (IllegalAccessException expected) {
            // Not exported to this (unnamed) module.
        }
        Path dir = Files.createTempDirectory("mvbt-module-path");
        try (Store s = Store.open(dir.resolve("store.mvbt"))) {
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            try (WriteTxn tx = s.beginWrite()) {
                Tree t = tx.createTreeIfAbsent("t");
                tx.put(t, key, "v".getBytes(StandardCharsets.UTF_8));
                tx.commit();
            }
            try (Snapshot snapshot = s.beginRead()) {
                byte[] v = snapshot.get(s.tree("t"), key);
                check(v != null && "v".equals(new String(v, StandardCharsets.UTF_8)), "read back what was committed");
            }
        }
        System.out.println("ok");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("wrong: " + what);
            System.exit(1);
        }
    }
}
