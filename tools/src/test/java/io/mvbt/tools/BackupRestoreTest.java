// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static io.mvbt.tools.CommandsTest.mvbt;
import static io.mvbt.tools.CommandsTest.output;
import static io.mvbt.tools.CommandsTest.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.mvbt.revisions.NamedRevision;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;

/**
 * backup and restore round trips: each link of a chain restores to exactly what the source held at
 * that link's revision, key by key; the source keeps only the chain's last revision under a name.
 */
class BackupRestoreTest {
    private static final Pattern TO = Pattern.compile("\"to\":(\\d+)");

    @TempDir
    Path dir;

    /** Runs a backup; returns the revision its link holds. */
    static long backup(Path store, Path dest, String... more) {
        List<String> args = new ArrayList<>(List.of("backup", store.toString(), dest.toString(), "--json"));
        args.addAll(List.of(more));
        Object[] r = mvbt(args.toArray(String[]::new));
        assertEquals(0, status(r), output(r));
        Matcher m = TO.matcher(output(r));
        assertTrue(m.find(), output(r));
        return Long.parseLong(m.group(1));
    }

    static void restore(Path dest, Path target, String... more) {
        List<String> args = new ArrayList<>(List.of("restore", dest.toString(), target.toString()));
        args.addAll(List.of(more));
        Object[] r = mvbt(args.toArray(String[]::new));
        assertEquals(0, status(r), output(r));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    void everyLinkRestoresItsRevisionKeyByKey(long seed) {
        Random random = new Random(seed);
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        int pageSize = new int[] {4096, 8192, 16384}[(int) (seed % 3)];
        try (Store store = Store.open(source, StoreOptions.defaults().pageSize(pageSize))) {
            BackupHistories.change(store, random, 3_000);
        }
        TreeMap<Long, TreeMap<String, TreeMap<String, String>>> expected = new TreeMap<>();
        for (int link = 0; link < 6; link++) {
            long revision = backup(source, dest);
            expected.put(revision, BackupHistories.contents(source));
            try (Store store = Store.open(source)) {
                List<NamedRevision> named = store.namedRevisions();
                assertEquals(1, named.size(), "the chain keeps only its last revision: " + named);
                assertEquals(revision, named.get(0).revision());
                BackupHistories.change(store, random, link % 2 == 0 ? 300 : 2_000);
            }
        }
        for (var e : expected.entrySet()) {
            Path target = dir.resolve("restored-" + e.getKey() + ".mvbt");
            restore(dest, target, "--to", Long.toString(e.getKey()));
            assertEquals(e.getValue(), BackupHistories.contents(target), "revision " + e.getKey() + ", seed " + seed);
        }
        Path last = dir.resolve("last.mvbt");
        restore(dest, last);
        assertEquals(expected.lastEntry().getValue(), BackupHistories.contents(last));
    }

    @Test
    void aDeltaIsLaidOutAsFormatMdSays() throws IOException {
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        try (Store store = Store.open(source)) {
            BackupHistories.change(store, new Random(8), 600);
        }
        long from = backup(source, dest);
        try (Store store = Store.open(source)) {
            BackupHistories.change(store, new Random(7), 600);
        }
        long to = backup(source, dest);
        long storeId;
        try (Store store = Store.openReadOnly(source)) {
            storeId = store.id();
        }
        java.nio.ByteBuffer chain = java.nio.ByteBuffer.wrap(Files.readAllBytes(dest.resolve("chain")))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        byte[] bytes = Files.readAllBytes(dest.resolve("000001.delta"));
        java.nio.ByteBuffer d = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals("mvbtchn1", new String(Files.readAllBytes(dest.resolve("chain")), 0, 8,
                java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals("mvbtdel1", new String(bytes, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(1, d.getInt(8));
        assertEquals(1, d.getInt(12));
        assertEquals(chain.getLong(8), d.getLong(16));
        assertEquals(storeId, d.getLong(24));
        assertEquals(storeId, chain.getLong(16));
        assertEquals(from, d.getLong(32));
        assertEquals(to, d.getLong(40));
        assertEquals(0, d.getInt(bytes.length - 36), "the trailer's end marker");
        assertEquals(DeltaFormat.TRAILER_BYTES, 36);
        assertEquals(DeltaFormat.HEADER_BYTES, 56);
    }

    @Test
    void aBackupWithoutChangesIsAnEmptyLink() {
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        try (Store store = Store.open(source)) {
            BackupHistories.change(store, new Random(9), 600);
        }
        backup(source, dest);
        backup(source, dest);
        backup(source, dest);
        Path target = dir.resolve("t.mvbt");
        restore(dest, target);
        assertEquals(BackupHistories.contents(source), BackupHistories.contents(target));
    }

    @Test
    void aChainBelongsToOneStoreAndADirectoryToOneChain() throws IOException {
        Path source = dir.resolve("source.mvbt");
        Path other = dir.resolve("other.mvbt");
        Path dest = dir.resolve("backup");
        for (Path p : List.of(source, other)) {
            try (Store store = Store.open(p)) {
                BackupHistories.change(store, new Random(13), 300);
            }
        }
        Object[] since = mvbt("backup", source.toString(), dest.toString(), "--since", "x");
        assertEquals(ExitCodes.USAGE, status(since), "--since needs a chain to continue");
        backup(source, dest);
        byte[] chain = Files.readAllBytes(dest.resolve("chain"));
        Object[] r = mvbt("backup", other.toString(), dest.toString());
        assertEquals(ExitCodes.FAILED, status(r), "another store's backup into this chain");
        assertEquals(List.of(), Files.list(dest).filter(p -> p.toString().endsWith(".delta")).toList());
        assertTrue(java.util.Arrays.equals(chain, Files.readAllBytes(dest.resolve("chain"))));
        try (Store store = Store.open(other)) {
            assertEquals(List.of(), store.namedRevisions(), "a refused backup names nothing");
        }
        Path notAChain = Files.createDirectories(dir.resolve("photos"));
        Files.writeString(notAChain.resolve("cat.jpg"), "meow");
        Files.writeString(notAChain.resolve("draft.tmp"), "not the backup's to remove");
        assertEquals(ExitCodes.FAILED, status(mvbt("backup", source.toString(), notAChain.toString())));
        assertEquals(2, Files.list(notAChain).count(), "a backup leaves a directory that is no chain alone");
        assertEquals(ExitCodes.CANNOT_OPEN, status(mvbt("restore", notAChain.toString(),
                dir.resolve("t.mvbt").toString())));
        assertFalse(Files.exists(dir.resolve("t.mvbt")));
    }

    @Test
    void aReleasedChainNameAsksForANewChain() {
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        try (Store store = Store.open(source)) {
            BackupHistories.change(store, new Random(10), 600);
        }
        backup(source, dest);
        try (Store store = Store.open(source)) {
            store.release(store.namedRevisions().get(0).name());
        }
        Object[] r = mvbt("backup", source.toString(), dest.toString());
        assertEquals(ExitCodes.NOT_FOUND, status(r));
        // A fresh directory starts a new chain.
        backup(source, dir.resolve("backup2"));
    }

    @Test
    void sinceNamesTheBaseExplicitly() {
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        Random random = new Random(11);
        try (Store store = Store.open(source)) {
            BackupHistories.change(store, random, 600);
            // The application keeps its own name at the revision the backup then copies.
            store.update(tx -> tx.retain("nightly"));
        }
        long first = backup(source, dest);
        try (Store store = Store.open(source)) {
            try (var nightly = store.beginRead("nightly")) {
                assertEquals(first, nightly.revision());
            }
            for (NamedRevision n : store.namedRevisions()) {
                if (n.name().startsWith("backup:")) {
                    store.release(n.name());
                }
            }
            BackupHistories.change(store, random, 600);
        }
        Object[] lost = mvbt("backup", source.toString(), dest.toString());
        assertEquals(ExitCodes.NOT_FOUND, status(lost), output(lost));
        assertTrue(output(lost).isEmpty());
        backup(source, dest, "--since", "nightly");
        Path target = dir.resolve("t.mvbt");
        restore(dest, target);
        assertEquals(BackupHistories.contents(source), BackupHistories.contents(target));
        // A name at another revision than the chain's last cannot continue it.
        try (Store store = Store.open(source)) {
            store.retain("later");
        }
        Object[] other = mvbt("backup", source.toString(), dest.toString(), "--since", "later");
        assertEquals(ExitCodes.NOT_FOUND, status(other), output(other));
    }

    @Test
    void restoreRefusesAnExistingTargetUnlessForced() throws IOException {
        Path source = dir.resolve("source.mvbt");
        Path dest = dir.resolve("backup");
        try (Store store = Store.open(source)) {
            BackupHistories.change(store, new Random(12), 600);
        }
        backup(source, dest);
        Path target = dir.resolve("t.mvbt");
        Files.writeString(target, "precious");
        Object[] r = mvbt("restore", dest.toString(), target.toString());
        assertEquals(ExitCodes.FAILED, status(r));
        assertEquals("precious", Files.readString(target));
        restore(dest, target, "--force");
        assertEquals(BackupHistories.contents(source), BackupHistories.contents(target));
        assertFalse(Files.exists(dir.resolve("t.mvbt.restoring")));
    }
}
