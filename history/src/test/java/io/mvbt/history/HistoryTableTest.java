// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import static io.mvbt.history.Tokens.id;
import static io.mvbt.history.Tokens.token;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.ClosedException;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.WriteTxn;

/** Every operation of the table against INN's rules (hisv6 / hissqlite). */
class HistoryTableTest {
    private static final long T = 1_760_000_000L;

    @TempDir
    Path dir;

    private HistoryTable memoryTable(Store store) {
        return HistoryTable.open(store);
    }

    @Test
    void writeStoresAnArticleAndADuplicateNeverOverwrites() {
        try (Store store = Store.inMemory(); HistoryTable h = memoryTable(store)) {
            assertTrue(h.write("<a@x.invalid>", T, T - 60, T + 86400, token(1)));
            assertFalse(h.write("<a@X.INVALID>", T + 5, T, 0, token(2)), "same Message-ID after canonicalisation");
            HistoryEntry e = h.lookup("<a@x.invalid>");
            assertEquals(token(1), e.token());
            assertEquals(T, e.arrived());
            assertEquals(T - 60, e.posted());
            assertEquals(T + 86400, e.expires());
            assertArrayEquals(MessageIdHash.of("<a@x.invalid>"), e.hash());
            // A remembered entry is not overwritten by write either.
            assertTrue(h.remember("<b@x.invalid>", T, T));
            assertFalse(h.write("<b@x.invalid>", T, T, 0, token(3)));
            assertNull(h.lookup("<b@x.invalid>"));
            assertEquals(new HistoryCounts(2, 1, 1), h.counts());
        }
    }

    @Test
    void rememberNeverDowngradesAnArticleNorChangesAnEntry() {
        try (Store store = Store.inMemory(); HistoryTable h = memoryTable(store)) {
            h.write("<a@x.invalid>", T, T, 0, token(1));
            assertFalse(h.remember("<a@x.invalid>", T + 1, T + 1));
            assertEquals(token(1), h.lookup("<a@x.invalid>").token());
            assertTrue(h.remember("<r@x.invalid>", T, 0));
            assertFalse(h.remember("<r@x.invalid>", T + 9, T + 9));
            HistoryEntry r = h.entry("<r@x.invalid>");
            assertTrue(r.isRemembered());
            assertEquals(T, r.arrived());
            assertEquals(0, r.posted());
            assertEquals(new HistoryCounts(2, 1, 1), h.counts());
        }
    }

    @Test
    void replaceIsAFullUpsertAndANullTokenRemembers() {
        try (Store store = Store.inMemory(); HistoryTable h = memoryTable(store)) {
            assertFalse(h.replace("<n@x.invalid>", T, T, T + 10, token(5)), "inserted: nothing was there");
            assertEquals(new HistoryCounts(1, 1, 0), h.counts());
            assertTrue(h.replace("<n@x.invalid>", T + 1, T - 1, 0, null), "article to remembered");
            HistoryEntry r = h.entry("<n@x.invalid>");
            assertTrue(r.isRemembered());
            assertEquals(T + 1, r.arrived());
            assertEquals(0, r.expires());
            assertEquals(new HistoryCounts(1, 0, 1), h.counts());
            assertTrue(h.replace("<n@x.invalid>", T + 2, T, T + 20, token(6)), "remembered to article");
            assertEquals(token(6), h.lookup("<n@x.invalid>").token());
            assertEquals(T + 20, h.lookup("<n@x.invalid>").expires());
            assertEquals(new HistoryCounts(1, 1, 0), h.counts());
            assertFalse(h.replace("<m@x.invalid>", T, T, 0, null), "inserted remembered");
            assertEquals(new HistoryCounts(2, 1, 1), h.counts());
            assertTrue(h.replace("<m@x.invalid>", T, 5, 0, null), "remembered to remembered");
            assertEquals(new HistoryCounts(2, 1, 1), h.counts());
        }
    }

    @Test
    void checkSeesBothFormsLookupOnlyArticles() {
        try (Store store = Store.inMemory(); HistoryTable h = memoryTable(store)) {
            h.write("<a@x.invalid>", T, T, 0, token(1));
            h.remember("<r@x.invalid>", T, T);
            assertTrue(h.check("<a@x.invalid>"));
            assertTrue(h.check("<r@x.invalid>"));
            assertFalse(h.check("<z@x.invalid>"));
            assertNotNull(h.lookup("<a@x.invalid>"));
            assertNull(h.lookup("<r@x.invalid>"), "a remembered entry is not found, as in INN");
            assertNull(h.lookup("<z@x.invalid>"));
            assertNull(h.entry("<z@x.invalid>"));
            // By hash: the same answers.
            assertTrue(h.check(MessageIdHash.of("<r@X.invalid>")));
            assertNotNull(h.lookup(MessageIdHash.of("<a@x.INVALID>")));
        }
    }

    @Test
    void walkVisitsOneSnapshotInHashOrder() {
        try (Store store = Store.inMemory(); HistoryTable h = memoryTable(store)) {
            TreeMap<byte[], HistoryEntry> model = new TreeMap<>(Arrays::compareUnsigned);
            try (HistoryBatch b = h.beginBatch()) {
                for (int i = 0; i < 2000; i++) {
                    byte[] hash = MessageIdHash.of(id(i));
                    if (i % 3 == 0) {
                        b.remember(hash, T + i, T);
                        model.put(hash, HistoryEntry.remembered(hash, T + i, T));
                    } else {
                        b.write(hash, T + i, T - i, i % 2 == 0 ? 0 : T + 100 * i, token(i));
                        model.put(hash, HistoryEntry.article(hash, T + i, T - i, i % 2 == 0 ? 0 : T + 100 * i, token(i)));
                    }
                }
                b.commit();
            }
            try (HistoryReader r = h.reader()) {
                h.write(id(99_999), T, T, 0, token(1)); // after the reader's snapshot: not walked
                List<HistoryEntry> seen = new ArrayList<>();
                assertEquals(2000, r.walk(seen::add));
                assertEquals(new ArrayList<>(model.values()), seen);
                assertEquals(new HistoryCounts(2000, 1333, 667), r.counts());
                List<HistoryEntry> first = new ArrayList<>();
                assertEquals(10, r.walk(e -> first.add(e) && first.size() < 10), "stops when the visitor says so");
            }
            assertEquals(2001, h.walk(e -> true));
            assertEquals(new HistoryCounts(2001, 1334, 667), h.counts());
        }
    }

    @Test
    void aBatchIsOneCommitAndAnAbortedBatchLeavesNothing() {
        try (Store store = Store.inMemory(); HistoryTable h = memoryTable(store)) {
            long before = store.revision();
            try (HistoryBatch b = h.beginBatch()) {
                for (int i = 0; i < 100; i++) {
                    assertTrue(b.write(id(i), T, T, 0, token(i)));
                }
                assertFalse(b.write(id(5), T, T, 0, token(5)), "a batch sees its own writes");
                b.remember(id(1000), T, T);
                b.commit();
            }
            assertEquals(before + 1, store.revision());
            try (HistoryBatch b = h.beginBatch()) {
                b.write(id(500), T, T, 0, token(500));
                b.remember(id(501), T, T);
            }
            assertFalse(h.check(id(500)));
            assertEquals(new HistoryCounts(101, 100, 1), h.counts());
        }
    }

    @Test
    void eachWriteIsOneCommitInTheTablesDurability() {
        try (Store store = Store.inMemory(); HistoryTable h = memoryTable(store)) {
            assertEquals(Durability.NORMAL, h.durability());
            long before = store.revision();
            h.write(id(1), T, T, 0, token(1));
            h.remember(id(2), T, T);
            h.replace(id(3), T, T, 0, token(3));
            assertEquals(before + 3, store.revision());
            h.write(id(1), T, T, 0, token(1));
            h.remember(id(1), T, T);
            assertEquals(before + 3, store.revision(), "a refused write commits nothing");
        }
    }

    @Test
    void misuseIsRefusedClearly() {
        try (Store store = Store.inMemory(); HistoryTable h = memoryTable(store)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> h.write(new byte[15], T, T, 0, token(1)));
            assertTrue(e.getMessage().contains("16 bytes, not 15"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> h.check(new byte[17]));
            assertThrows(IllegalArgumentException.class, () -> h.lookup((byte[]) null));
            assertThrows(IllegalArgumentException.class, () -> h.write(id(1), T, T, 0, null));
            assertThrows(IllegalArgumentException.class, () -> h.check("<" + "x".repeat(300) + "@y>"));
            assertThrows(IllegalArgumentException.class, () -> StorageToken.of(new byte[17]));
            assertThrows(IllegalArgumentException.class, () -> StorageToken.parse("@00@"));
            HistoryBatch b = h.beginBatch();
            b.commit();
            assertThrows(ClosedException.class, () -> b.write(id(1), T, T, 0, token(1)));
            h.close();
            assertThrows(ClosedException.class, () -> h.write(id(1), T, T, 0, token(1)));
            assertThrows(ClosedException.class, () -> h.check(id(1)));
            assertThrows(ClosedException.class, h::counts);
            assertThrows(ClosedException.class, () -> h.expire(ExpiryPolicy.standard(1), ExpireOptions.defaults()));
        }
    }

    @Test
    void anotherTreeOfTheSameNameIsNotTakenForAHistory() {
        try (Store store = Store.inMemory()) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.createTree("history");
                tx.commit();
            }
            HistoryException e = assertThrows(HistoryException.class, () -> HistoryTable.open(store));
            assertTrue(e.getMessage().contains("not a history table"), e.getMessage());
            try (HistoryTable other = HistoryTable.open(store, "news", Durability.SYNC)) {
                assertTrue(other.write(id(1), T, T, 0, token(1)));
                assertEquals(1, other.counts().articles());
            }
        }
    }

    @Test
    void reopeningAfterCloseKeepsEverything() {
        Path file = dir.resolve("history.mvbt");
        Map<String, HistoryEntry> model = new TreeMap<>();
        Random random = new Random(11);
        try (HistoryTable h = HistoryTable.open(file)) {
            for (int i = 0; i < 3000; i++) {
                String id = id(random.nextInt(2500));
                int op = random.nextInt(10);
                byte[] hash = MessageIdHash.of(id);
                HistoryEntry old = model.get(id);
                if (op < 6) {
                    assertEquals(old == null, h.write(id, T + i, T, T + i * 10, token(i)));
                    if (old == null) {
                        model.put(id, HistoryEntry.article(hash, T + i, T, T + i * 10, token(i)));
                    }
                } else if (op < 8) {
                    assertEquals(old == null, h.remember(id, T + i, 0));
                    if (old == null) {
                        model.put(id, HistoryEntry.remembered(hash, T + i, 0));
                    }
                } else {
                    StorageToken t = op == 8 ? null : token(i);
                    assertEquals(old != null, h.replace(id, T, T + i, T + 2 * i, t));
                    model.put(id, HistoryEntry.of(hash, T, T + i, T + 2 * i, t));
                }
            }
        }
        try (HistoryTable h = HistoryTable.open(file)) {
            long articles = model.values().stream().filter(HistoryEntry::isArticle).count();
            assertEquals(new HistoryCounts(model.size(), articles, model.size() - articles), h.counts());
            for (Map.Entry<String, HistoryEntry> e : model.entrySet()) {
                assertEquals(e.getValue(), h.entry(e.getKey()));
                assertEquals(e.getValue().isArticle() ? e.getValue() : null, h.lookup(e.getKey()));
            }
            h.store().check().throwIfDamaged();
        }
    }
}
