// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static io.mvbt.tools.BackupRestoreTest.backup;
import static io.mvbt.tools.BackupRestoreTest.restore;
import static io.mvbt.tools.CommandsTest.mvbt;
import static io.mvbt.tools.CommandsTest.status;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Store;

/**
 * A damaged link (a flipped byte, a truncated file, a removed middle file) stops restore with the
 * damaged status and a message naming the link, before anything is written: an existing TARGET
 * keeps its bytes, even with --force, and no temporary file is left. Links before the damage still
 * restore.
 */
class BackupDamageTest {
    @TempDir
    Path dir;

    private Path dest;
    private Path target;
    private byte[] good;
    private final List<Long> revisions = new ArrayList<>();
    private final TreeMap<Long, TreeMap<String, TreeMap<String, String>>> contents = new TreeMap<>();

    @BeforeEach
    void fourLinks() throws IOException {
        Path source = dir.resolve("source.mvbt");
        dest = dir.resolve("backup");
        Random random = new Random(21);
        for (int link = 0; link < 4; link++) {
            try (Store store = Store.open(source)) {
                BackupHistories.change(store, random, 1_500);
            }
            long r = backup(source, dest);
            revisions.add(r);
            contents.put(r, BackupHistories.contents(source));
        }
        // A good store at TARGET, which no failed restore may touch.
        target = dir.resolve("target.mvbt");
        restore(dest, target, "--to", Long.toString(revisions.get(0)));
        good = Files.readAllBytes(target);
    }

    /** Restore over the good TARGET fails as damaged, naming {@code what}, and leaves it as it was. */
    private void refused(String what) throws IOException {
        for (String[] args : List.of(new String[] {"restore", dest.toString(), target.toString()},
                new String[] {"restore", dest.toString(), target.toString(), "--force"})) {
            PrintStream saved = System.err;
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            Object[] r;
            try {
                r = mvbt(args);
            } finally {
                System.setErr(saved);
            }
            String message = err.toString(StandardCharsets.UTF_8);
            if (args.length == 3) {
                // Without --force the existing TARGET is refused before the chain is read.
                assertEquals(ExitCodes.FAILED, status(r), message);
                continue;
            }
            assertEquals(ExitCodes.DAMAGED, status(r), message);
            assertTrue(message.contains(what), message);
            assertArrayEquals(good, Files.readAllBytes(target));
            assertFalse(Files.exists(dir.resolve("target.mvbt.restoring")));
        }
        Path fresh = dir.resolve("fresh.mvbt");
        Object[] r = mvbt("restore", dest.toString(), fresh.toString());
        assertEquals(ExitCodes.DAMAGED, status(r));
        assertFalse(Files.exists(fresh));
    }

    private Path link(int k) {
        return dest.resolve(BackupChain.deltaName(k));
    }

    private static void flip(Path file, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ 0x10);
        }
    }

    @Test
    void aFlippedByteInADeltaIsFound() throws IOException {
        long size = Files.size(link(2));
        for (long offset : new long[] {3, 20, DeltaFormat.HEADER_BYTES + 2, size / 2, size - 5}) {
            flip(link(2), offset);
            refused(BackupChain.deltaName(2));
            flip(link(2), offset);
        }
        // The links before it still restore.
        Path earlier = dir.resolve("earlier.mvbt");
        restore(dest, earlier, "--to", Long.toString(revisions.get(1)));
        assertEquals(contents.get(revisions.get(1)), BackupHistories.contents(earlier));
    }

    @Test
    void aTruncatedDeltaIsFound() throws IOException {
        byte[] whole = Files.readAllBytes(link(3));
        for (int keep : new int[] {0, 10, DeltaFormat.HEADER_BYTES, whole.length / 2, whole.length - 1}) {
            Files.write(link(3), java.util.Arrays.copyOf(whole, keep));
            refused(BackupChain.deltaName(3));
        }
        Files.write(link(3), whole);
        Path all = dir.resolve("all.mvbt");
        restore(dest, all);
        assertEquals(contents.lastEntry().getValue(), BackupHistories.contents(all));
    }

    @Test
    void aMissingMiddleLinkIsFound() throws IOException {
        Files.delete(link(2));
        refused(BackupChain.deltaName(2));
    }

    @Test
    void aDeltaInTheWrongPlaceIsFound() throws IOException {
        Files.move(link(3), link(2), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        refused(BackupChain.deltaName(2));
    }

    @Test
    void aFlippedByteInTheFullCopyIsFound() throws IOException {
        flip(dest.resolve(BackupChain.FULL), Files.size(dest.resolve(BackupChain.FULL)) / 3);
        refused(BackupChain.FULL);
    }

    @Test
    void aDamagedChainFileIsFound() throws IOException {
        flip(dest.resolve(BackupChain.BASE), 30);
        refused(BackupChain.BASE);
    }

    @Test
    void aRevisionNoLinkHoldsIsNotFound() {
        Object[] r = mvbt("restore", dest.toString(), dir.resolve("x.mvbt").toString(), "--to",
                Long.toString(revisions.get(3) + 1000));
        assertEquals(ExitCodes.NOT_FOUND, status(r));
        assertFalse(Files.exists(dir.resolve("x.mvbt")));
    }
}
