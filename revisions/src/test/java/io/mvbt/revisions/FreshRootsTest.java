// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.PageStore;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * Roots of changed trees kept in the meta page instead of the catalog ({@link FreshRoots}): the
 * catalog is left alone by commits that only change trees, folded into when trees come and go or
 * too many change, and every path that reads roots (readers, reopening, the checker) sees the
 * newest ones.
 */
class FreshRootsTest {
    @TempDir
    Path dir;

    @Test
    void commitsThatOnlyChangeATreeLeaveTheCatalogAlone() {
        Path path = dir.resolve("one.mvbt");
        try (Store store = Store.open(path)) {
            Tree t = create(store, "t");
            TreeRoot before = catalogOf(store);
            for (int i = 0; i < 1000; i++) {
                put(store, t, i);
            }
            TreeRoot after = catalogOf(store);
            assertEquals(before.page, after.page, "the catalog's root page");
            assertEquals(before.revision, after.revision, "the catalog's root revision");
            assertTrue(store.check().ok(), store.check().toString());
        }
        try (Store store = Store.open(path)) {
            assertAll(store, store.tree("t"), 1001);
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void aCheckpointSealsThePagesOfTreesWithFreshRoots() {
        Path path = dir.resolve("normal.mvbt");
        StoreOptions normal = StoreOptions.defaults().durability(Durability.NORMAL);
        try (Store store = Store.open(path, normal)) {
            Tree t = create(store, "t");
            store.sync();
            for (int i = 0; i < 300; i++) {
                put(store, t, i);
            }
            store.sync();
            CheckReport report = store.check();
            assertTrue(report.ok(), report.toString());
        }
        try (Store store = Store.open(path, normal)) {
            assertAll(store, store.tree("t"), 301);
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void changingMoreTreesThanTheMetaHoldsFoldsThemIntoTheCatalog() {
        Path path = dir.resolve("many.mvbt");
        int trees = FreshRoots.MAX_ROOTS + 2;
        try (Store store = Store.open(path)) {
            Tree[] t = new Tree[trees];
            for (int i = 0; i < trees; i++) {
                t[i] = create(store, "tree-" + i);
            }
            // A few trees at a time: their roots stay in the meta.
            for (int i = 0; i < 100; i++) {
                put(store, t[i % 3], i);
            }
            TreeRoot before = catalogOf(store);
            try (WriteTxn tx = store.beginWrite()) {
                for (Tree tree : t) {
                    tx.put(tree, key(1000), value(1000));
                }
                tx.commit();
            }
            assertNotEquals(before.revision, catalogOf(store).revision, "ten trees changed: the catalog holds them");
            assertTrue(store.check().ok(), store.check().toString());
        }
        try (Store store = Store.open(path)) {
            for (int i = 0; i < trees; i++) {
                try (Snapshot s = store.beginRead()) {
                    Tree tree = store.tree("tree-" + i);
                    assertArrayEquals(value(1000), s.get(tree, key(1000)), "tree-" + i);
                    long expected = 2 + (i == 0 ? 34 : i < 3 ? 33 : 0);
                    assertEquals(expected, s.count(tree), "entries of tree-" + i);
                }
            }
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void creatingATreeWritesTheFreshRootsIntoTheCatalog() {
        try (Store store = Store.open(dir.resolve("create.mvbt"))) {
            Tree t = create(store, "t");
            for (int i = 0; i < 50; i++) {
                put(store, t, i);
            }
            create(store, "u");
            try (Snapshot s = store.beginRead()) {
                TreeRoot inCatalog = Catalog.lookup(s.reader(), s.catalog(), "t".getBytes(StandardCharsets.UTF_8));
                assertNotNull(inCatalog);
                assertEquals(51, inCatalog.entries, "the catalog's entry is the tree's newest root");
                assertEquals(s.rootOf(t).page, inCatalog.page);
            }
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void aTreeWithALongNameLivesInTheCatalog() {
        Path path = dir.resolve("long.mvbt");
        String name = "n".repeat(FreshRoots.MAX_KEY + 1);
        try (Store store = Store.open(path)) {
            Tree t = create(store, name);
            TreeRoot before = catalogOf(store);
            put(store, t, 0);
            assertNotEquals(before.revision, catalogOf(store).revision);
        }
        try (Store store = Store.open(path)) {
            assertAll(store, store.tree(name), 2);
        }
    }

    @Test
    void droppingATreeWithAFreshRootDropsIt() {
        Path path = dir.resolve("drop.mvbt");
        try (Store store = Store.open(path)) {
            Tree t = create(store, "t");
            Tree u = create(store, "u");
            put(store, t, 1);
            put(store, u, 1);
            try (WriteTxn tx = store.beginWrite()) {
                tx.dropTree(t);
                tx.commit();
            }
            put(store, u, 2);
            assertTrue(store.check().ok(), store.check().toString());
        }
        try (Store store = Store.open(path)) {
            try (Snapshot s = store.beginRead()) {
                assertEquals(java.util.List.of("u"), s.treeNames());
                assertEquals(3, s.count(store.tree("u")));
            }
            assertTrue(store.check().ok(), store.check().toString());
        }
    }

    @Test
    void aStoreOfFormatOneOpensAndIsWrittenInFormatTwo() {
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        try (Store store = Store.open(disk, StoreOptions.defaults())) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTree("t");
                tx.put(t, key(1), value(1));
                tx.commit();
            }
        }
        PowerCutPageStore old = PowerCutPageStore.of(disk.cut(new Random(1)), 4096);
        int converted = 0;
        for (int slot = 0; slot < PageStore.META_SLOTS; slot++) {
            converted += toFormatOne(old, slot) ? 1 : 0;
        }
        assertTrue(converted > 0, "no meta to convert");
        try (Store store = Store.open(old, StoreOptions.defaults())) {
            Tree t = store.tree("t");
            try (Snapshot s = store.beginRead()) {
                assertArrayEquals(value(1), s.get(t, key(1)));
            }
            put(store, t, 2);
            MetaPage.Record newest = Recovery.readAll(old, checksums(old)).get(0);
            assertEquals(MetaPage.FORMAT_VERSION, UNSAFE.getInt(old.address(newest.slot) + MetaPage.FORMAT));
            assertEquals(1, newest.fresh.size());
        }
    }

    @Test
    void aMetaWithADamagedFreshRootListIsNotTrusted() {
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        try (Store store = Store.open(disk, StoreOptions.defaults())) {
            Tree t = create(store, "t");
            put(store, t, 1);
        }
        PowerCutPageStore image = PowerCutPageStore.of(disk.cut(new Random(1)), 4096);
        Checksums checksums = checksums(image);
        MetaPage.Record newest = Recovery.readAll(image, checksums).get(0);
        assertEquals(1, newest.fresh.size());
        long page = image.address(newest.slot);
        int length = UNSAFE.getInt(page + MetaPage.LENGTH);
        long fresh = page + MetaPage.FLIPS + 8L * newest.flips.length;
        UNSAFE.putInt(fresh, FreshRoots.MAX_ROOTS + 1);
        UNSAFE.putInt(page + MetaPage.CHECKSUM, checksums.ofMeta(newest.slot, length));
        assertNull(MetaPage.read(image, checksums, newest.slot), "a count past the limit");
        UNSAFE.putInt(fresh, 1);
        UNSAFE.putInt(fresh + 4, FreshRoots.MAX_KEY + 1);
        UNSAFE.putInt(page + MetaPage.CHECKSUM, checksums.ofMeta(newest.slot, length));
        assertNull(MetaPage.read(image, checksums, newest.slot), "a name longer than the limit");
        UNSAFE.putInt(fresh + 4, 1);
        UNSAFE.putInt(page + MetaPage.LENGTH, length - 8);
        UNSAFE.putInt(page + MetaPage.CHECKSUM, checksums.ofMeta(newest.slot, length - 8));
        assertNull(MetaPage.read(image, checksums, newest.slot), "a list cut short");
    }

    @Test
    void theCheckerReportsAFreshRootOfATreeTheCatalogLacks() {
        PowerCutPageStore disk = new PowerCutPageStore(4096);
        try (Store store = Store.open(disk, StoreOptions.defaults())) {
            put(store, create(store, "t"), 1);
        }
        PowerCutPageStore image = PowerCutPageStore.of(disk.cut(new Random(1)), 4096);
        Checksums checksums = checksums(image);
        for (MetaPage.Record m : Recovery.readAll(image, checksums)) {
            if (m.fresh.size() == 1) {
                // Rename the fresh root's tree from "t" to "x", as damage the checksum cannot see would.
                long page = image.address(m.slot);
                long name = page + MetaPage.FLIPS + 8L * m.flips.length + 4 + 8 + TreeRoot.BYTES;
                UNSAFE.putByte(name, (byte) 'x');
                int length = UNSAFE.getInt(page + MetaPage.LENGTH);
                UNSAFE.putInt(page + MetaPage.CHECKSUM, checksums.ofMeta(m.slot, length));
            }
        }
        try (Store store = Store.open(image, StoreOptions.defaults())) {
            CheckReport report = store.check();
            assertFalse(report.ok());
            assertTrue(report.toString().contains("fresh root of tree 'x'"), report.toString());
        }
    }

    /** Rewrites a meta slot without fresh roots as format 1 would have written it; false if it has some. */
    private static boolean toFormatOne(PowerCutPageStore store, int slot) {
        Checksums checksums = checksums(store);
        MetaPage.Record m = MetaPage.read(store, checksums, slot);
        if (m == null || m.fresh.size() > 0) {
            return false;
        }
        long page = store.address(slot);
        int length = MetaPage.FLIPS + 8 * m.flips.length;
        UNSAFE.putInt(page + MetaPage.FORMAT, MetaPage.FORMAT_WITHOUT_FRESH_ROOTS);
        UNSAFE.putInt(page + MetaPage.LENGTH, length);
        UNSAFE.putInt(page + MetaPage.CHECKSUM, checksums.ofMeta(slot, length));
        MetaPage.Record back = MetaPage.read(store, checksums, slot);
        assertNotNull(back, "a format 1 meta reads");
        return true;
    }

    private static Checksums checksums(PowerCutPageStore store) {
        Checksums checksums = new Checksums(store);
        for (int slot = 0; slot < PageStore.META_SLOTS; slot++) {
            long page = store.address(slot);
            if (UNSAFE.getLong(page + MetaPage.MAGIC_OFFSET) == MetaPage.MAGIC) {
                checksums.seed(UNSAFE.getLong(page + MetaPage.STORE_ID));
                break;
            }
        }
        return checksums;
    }

    private static TreeRoot catalogOf(Store store) {
        try (Snapshot s = store.beginRead()) {
            return s.catalog().copy();
        }
    }

    private static Tree create(Store store, String name) {
        try (WriteTxn tx = store.beginWrite()) {
            Tree t = tx.createTree(name);
            tx.put(t, key(-1), value(-1));
            tx.commit();
            return t;
        }
    }

    private static void put(Store store, Tree t, int i) {
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(t, key(i), value(i));
            tx.commit();
        }
    }

    /** Checks the tree holds the key -1 and 0 to n - 2. */
    private static void assertAll(Store store, Tree t, int n) {
        try (Snapshot s = store.beginRead()) {
            assertEquals(n, s.count(t));
            assertArrayEquals(value(-1), s.get(t, key(-1)));
            for (int i = 0; i < n - 1; i++) {
                assertArrayEquals(value(i), s.get(t, key(i)), "key " + i);
            }
        }
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
