// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.pagestore.PageStore;

/**
 * Recovery opens at the newest meta whose pages verify, in this boot too, and says what it
 * dropped: a store is never left unopenable while an intact revision exists.
 */
class RecoveryFallbackTest {
    /** Pages written through the mapping, as without a shadow directory (what this test is about). */
    private static final StoreOptions MAPPED = StoreOptions.defaults().shadowDirectory(null);

    private static final int PAGE = 4096;

    @TempDir
    Path dir;

    /** Data of tree "t" after each revision. */
    private final TreeMap<Long, TreeMap<byte[], byte[]>> models = new TreeMap<>();

    private static byte[] key(int i) {
        return String.format("key-%05d", i).getBytes();
    }

    /**
     * Commits rewriting the same keys with the given durabilities; returns the file as a kill
     * leaves it. If {@code before} is given, the file as it was before the last commit goes there.
     */
    private Path killedStore(String name, Durability[] commits, Path before) throws IOException {
        Path path = dir.resolve(name);
        Path killed = dir.resolve("killed-" + name);
        TreeMap<byte[], byte[]> model = ModelHarness.newMap();
        try (Store store = Store.open(path, MAPPED.durability(Durability.NORMAL))) {
            for (int c = 0; c < commits.length; c++) {
                if (before != null && c == commits.length - 1) {
                    Files.copy(path, before, StandardCopyOption.REPLACE_EXISTING);
                }
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    for (int i = 0; i < 300; i++) {
                        byte[] v = ("commit " + c + " value " + i).getBytes();
                        tx.put(t, key(i), v);
                        model.put(key(i), v);
                    }
                    tx.commit(commits[c]);
                    TreeMap<byte[], byte[]> copy = ModelHarness.newMap();
                    copy.putAll(model);
                    models.put(tx.revision(), copy);
                }
            }
            // What a kill leaves: the file as the page cache holds it.
            Files.copy(path, killed, StandardCopyOption.REPLACE_EXISTING);
        }
        return killed;
    }

    /** Meta slots by sequence, newest first: {slot, sequence, revision, durable}. */
    private static List<long[]> metas(Path path) throws IOException {
        List<long[]> out = new ArrayList<>();
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "r")) {
            for (int slot = 0; slot < PageStore.META_SLOTS; slot++) {
                byte[] head = new byte[48];
                f.seek((long) slot * PAGE);
                f.readFully(head);
                ByteBuffer b = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
                if (b.getLong(MetaPage.MAGIC_OFFSET) == MetaPage.MAGIC) {
                    out.add(new long[] {slot, b.getLong(MetaPage.SEQUENCE), b.getLong(MetaPage.REVISION),
                        b.getLong(MetaPage.DURABLE_REVISION)});
                }
            }
        }
        out.sort(Comparator.comparingLong((long[] m) -> m[1]).reversed());
        return out;
    }

    private static void zeroSlot(Path path, long slot) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw")) {
            f.seek(slot * PAGE);
            f.write(new byte[PAGE]);
        }
    }

    /** Opens the store; checks it holds exactly the data of the revision it opened at; returns that revision. */
    private long openAndVerify(Path path, List<String> droppedOut) {
        try (Store store = Store.open(path, MAPPED)) {
            droppedOut.addAll(store.droppedRevisions());
            try (Snapshot s = store.beginRead()) {
                String diff = CrashWorkload.difference(s, store.tree("t"), models.floorEntry(s.revision()).getValue());
                assertNull(diff, "revision " + s.revision());
                assertTrue(store.check().ok(), store.check().toString());
                return s.revision();
            }
        }
    }

    /**
     * SYNC, then NORMAL commits, then the two newest metas zeroed: the newest left is a NORMAL
     * commit's whose pages later commits reused. Recovery in this boot trusted it and failed;
     * now it must open at the durable revision below, whose pages nothing may reuse.
     */
    @Test
    void theTwoNewestMetasZeroedOpensPastAMetaWhosePagesWereReused() throws IOException {
        Path path = killedStore("reused.mvbt",
                new Durability[] {Durability.SYNC, Durability.NORMAL, Durability.NORMAL, Durability.NORMAL}, null);
        List<long[]> metas = metas(path);
        long third = metas.get(2)[2];
        long fourth = metas.get(3)[2];
        zeroSlot(path, metas.get(0)[0]);
        zeroSlot(path, metas.get(1)[0]);
        // Pages of NORMAL commits that no held revision reaches are reused at once: by now no page
        // of the third's revision is its own any more.
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "r")) {
            for (long p = PageStore.META_SLOTS; p < f.length() / PAGE; p++) {
                byte[] header = new byte[24];
                f.seek(p * PAGE);
                f.readFully(header);
                assertTrue(ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getLong(8) != third);
            }
        }
        List<String> dropped = new ArrayList<>();
        long opened = openAndVerify(path, dropped);
        assertEquals(fourth, opened);
        assertEquals(1, dropped.size(), dropped.toString());
        assertTrue(dropped.get(0).contains("revision " + third + " did not verify"), dropped.toString());
    }

    @Test
    void aLostWriteInThisBootOpensAtTheCommitBefore() throws IOException {
        Path before = dir.resolve("before.mvbt");
        Durability[] commits = new Durability[6];
        java.util.Arrays.fill(commits, Durability.NORMAL);
        Path path = killedStore("lost.mvbt", commits, before);
        long newest = metas(path).get(0)[2];
        // Over one page the newest commit wrote, the bytes that page held before it: a write the
        // storage lost (a network file system, a writeback error) although the boot goes on.
        int replaced = 0;
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw");
                RandomAccessFile b = new RandomAccessFile(before.toFile(), "r")) {
            long pages = Math.min(f.length(), b.length()) / PAGE;
            for (long p = PageStore.META_SLOTS; p < pages && replaced == 0; p++) {
                byte[] now = new byte[PAGE];
                byte[] old = new byte[PAGE];
                f.seek(p * PAGE);
                f.readFully(now);
                b.seek(p * PAGE);
                b.readFully(old);
                long written = ByteBuffer.wrap(now).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
                if (written == newest && !java.util.Arrays.equals(now, old)) {
                    f.seek(p * PAGE);
                    f.write(old);
                    replaced++;
                }
            }
        }
        assertEquals(1, replaced);
        List<String> dropped = new ArrayList<>();
        long opened = openAndVerify(path, dropped);
        assertEquals(newest - 1, opened);
        assertTrue(dropped.toString().contains("revision " + newest + " did not verify"), dropped.toString());
    }
}
