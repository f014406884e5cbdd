// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static io.mvbt.tools.CommandsTest.mvbt;
import static io.mvbt.tools.CommandsTest.output;
import static io.mvbt.tools.CommandsTest.status;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/** The tools on damaged stores: they report the damage, keep the evidence, and save what can be read. */
class DamagedStoreCommandsTest {
    private static final int PAGE = 4096;

    @TempDir
    Path dir;

    /**
     * A store written by a9c4e5f with issue 27's fault: revision 1 bulk loads 2,000 long keys into
     * tree 'cut' (and 100 keys into 'other'); revision 2, a SYNC commit, range-deletes all but the
     * last 40, and leaves page 131 a branch whose first entry carries a key.
     */
    private Path storeWithTheRangeDeleteFault() throws IOException {
        Path path = dir.resolve("cut.mvbt");
        try (InputStream in = new GZIPInputStream(
                DamagedStoreCommandsTest.class.getResourceAsStream("/range-delete-damage-a9c4e5f.mvbt.gz"))) {
            Files.copy(in, path);
        }
        return path;
    }

    @Test
    void checkReportsTheRevisionTheFaultDamagedAndKeepsIt() throws IOException {
        Path path = storeWithTheRangeDeleteFault();
        byte[] before = Files.readAllBytes(path);
        Object[] check = mvbt("check", path.toString());
        assertEquals(ExitCodes.DAMAGED, status(check), output(check));
        assertTrue(output(check).contains("revision 2 did not verify"), output(check));
        assertTrue(output(check).contains("page 131: first child of a branch carries a key"), output(check));
        // Stat reads what it can and says what it cannot, without a stack trace.
        Object[] stat = mvbt("stat", path.toString());
        assertEquals(ExitCodes.DAMAGED, status(stat), output(stat));
        assertTrue(output(stat).contains("tree 'cut'") && output(stat).contains("tree 'other'"), output(stat));
        assertTrue(output(stat).contains("first child of a branch carries a key"), output(stat));
        // Neither wrote to the store: the damaged revision is still there to look at.
        assertArrayEquals(before, Files.readAllBytes(path));
        // What verifies is saved: the revision before the faulty commit.
        Path saved = dir.resolve("saved.mvbt");
        Object[] recover = mvbt("recover", path.toString(), saved.toString());
        assertEquals(ExitCodes.OK, status(recover), output(recover));
        assertTrue(output(recover).contains("recovered revision 1"), output(recover));
        assertEquals(ExitCodes.OK, status(mvbt("check", saved.toString())));
        try (Store store = Store.open(saved); Snapshot s = store.beginRead()) {
            assertEquals(2_000, s.count(store.tree("cut")));
            assertEquals(100, s.count(store.tree("other")));
        }
    }

    /**
     * A closed store of two trees of 20,000 entries each; large enough that its free map lives in
     * pages of its own (a small one keeps it in the meta).
     */
    private static long twoTrees(Path path) {
        try (Store store = Store.open(path); WriteTxn tx = store.beginWrite()) {
            Tree a = tx.createTree("a");
            Tree b = tx.createTree("b");
            for (int i = 0; i < 20_000; i++) {
                tx.put(a, String.format("a-%06d", i).getBytes(), new byte[i % 70]);
                tx.put(b, String.format("b-%06d", i).getBytes(), new byte[3]);
            }
            tx.commit();
            return 20_000;
        }
    }

    /** The first page of the given type; flips a bit of its content. */
    private static long damageFirstPageOfType(Path path, int type) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw")) {
            for (long p = 4; p < f.length() / PAGE; p++) {
                f.seek(p * PAGE + 5);
                if (f.read() == type) {
                    long at = p * PAGE + 200;
                    f.seek(at);
                    int b = f.read();
                    f.seek(at);
                    f.write(b ^ 0x10);
                    return p;
                }
            }
        }
        throw new AssertionError("no page of type " + type);
    }

    @Test
    void aDamagedFreeMapIsRepairedIntoANewStore() throws IOException {
        Path path = dir.resolve("freemap.mvbt");
        long entries = twoTrees(path);
        long page = damageFirstPageOfType(path, 4);
        // The trees are whole, but the free space cannot be known: the store does not open for writing.
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(path).close());
        assertTrue(e.getMessage().contains("page " + page), e.getMessage());
        Object[] check = mvbt("check", path.toString());
        assertEquals(ExitCodes.DAMAGED, status(check), output(check));
        Path repaired = dir.resolve("repaired.mvbt");
        Object[] recover = mvbt("recover", path.toString(), repaired.toString());
        assertEquals(ExitCodes.OK, status(recover), output(recover));
        assertEquals(ExitCodes.OK, status(mvbt("check", repaired.toString())));
        try (Store store = Store.open(repaired); Snapshot s = store.beginRead()) {
            assertEquals(entries, s.count(store.tree("a")));
            assertEquals(entries, s.count(store.tree("b")));
            // Writable, with a free map of its own.
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(store.tree("a"), "new".getBytes(), "1".getBytes());
                tx.commit();
            }
        }
    }

    @Test
    void statGoesOnPastADamagedTree() throws IOException {
        Path path = dir.resolve("leaf.mvbt");
        twoTrees(path);
        damageFirstPageOfType(path, 1);
        Object[] stat = mvbt("stat", path.toString());
        assertEquals(ExitCodes.DAMAGED, status(stat), output(stat));
        assertTrue(output(stat).contains("checksum mismatch"), output(stat));
        // The other tree is still described.
        assertTrue(output(stat).contains("entries 20,000"), output(stat));
    }
}
