// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.CorruptionException;
import io.mvbt.testkit.Profile;

/**
 * Damaged files: bits flipped, pages zeroed or overwritten, garbage written, the file truncated, a
 * page spliced in from another store. Opening and reading the copy must end in one of two ways:
 * the data of a committed revision (a clean recovery), or a {@link CorruptionException}. Any other
 * exception, a wrong answer or a hang fails. Cases: 10,000 in the short profile, 1,000,000 in the
 * long one, or {@code -Dmvbt.damage.cases=N}.
 */
class DamageTest {
    private static final int PAGE = 4096;
    private static final int META_SLOTS = io.mvbt.pagestore.PageStore.META_SLOTS;
    private static ExecutorService executor;

    @TempDir
    static Path dir;
    private static Path pristine;
    private static Path other;
    /** Data of each revision that changed data (later empty revisions read the same). */
    private static final TreeMap<Long, Map<String, TreeMap<byte[], byte[]>>> MODELS = new TreeMap<>();

    @BeforeAll
    static void build() {
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "damage-case");
            t.setDaemon(true);
            return t;
        });
        pristine = dir.resolve("pristine.mvbt");
        other = dir.resolve("other.mvbt");
        buildStore(pristine, 1, true);
        buildStore(other, 2, false);
    }

    @AfterAll
    static void stop() {
        executor.shutdownNow();
    }

    private static void buildStore(Path path, long seed, boolean record) {
        Random random = new Random(seed);
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        try (Store store = Store.open(path, StoreOptions.defaults().durability(Durability.NORMAL))) {
            for (int commit = 0; commit < 12; commit++) {
                try (WriteTxn tx = store.beginWrite()) {
                    for (String name : new String[] {"a", "b"}) {
                        Tree t = tx.createTreeIfAbsent(name);
                        TreeMap<byte[], byte[]> m = model.computeIfAbsent(name, n -> ModelHarness.newMap());
                        int n = name.equals("a") ? 400 : 60;
                        for (int i = 0; i < n; i++) {
                            byte[] k = String.format("%s-%05d", name, random.nextInt(4000)).getBytes();
                            byte[] v = new byte[random.nextInt(40) == 0 ? 9000 : random.nextInt(150)];
                            random.nextBytes(v);
                            if (random.nextInt(6) == 0) {
                                tx.delete(t, k);
                                m.remove(k);
                            } else {
                                tx.put(t, k, v);
                                m.put(k, v);
                            }
                        }
                    }
                    tx.commit(commit % 3 == 0 ? Durability.SYNC : Durability.NORMAL);
                    if (record) {
                        MODELS.put(tx.revision(), ModelHarness.deepCopy(model));
                    }
                }
                if (commit == 6) {
                    store.sync();
                }
            }
        }
    }

    @Test
    void damagedFilesGiveCorruptionOrCommittedData() throws Exception {
        int cases = Profile.size("mvbt.damage.cases", 10_000, 1_000_000);
        Random random = new Random(42);
        int clean = 0;
        int detected = 0;
        for (int c = 0; c < cases; c++) {
            Path copy = dir.resolve("case.mvbt");
            Files.copy(pristine, copy, StandardCopyOption.REPLACE_EXISTING);
            Files.deleteIfExists(dir.resolve("case.mvbt-lock"));
            String damage = damage(copy, random);
            Future<String> outcome = executor.submit(() -> openAndRead(copy));
            String result;
            try {
                result = outcome.get(60, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("case " + c + " (" + damage + ") hangs");
            } catch (java.util.concurrent.ExecutionException e) {
                throw new AssertionError("case " + c + " (" + damage + ") failed with " + e.getCause(), e.getCause());
            }
            if (result.equals("clean")) {
                clean++;
            } else {
                detected++;
            }
        }
        System.out.println("damage: " + cases + " cases, " + clean + " clean recoveries, " + detected
                + " CorruptionExceptions, 0 other outcomes");
        assertEquals(cases, clean + detected);
        assertTrue(detected > cases / 10, "damage should often be detected: " + detected);
    }

    /** The states a store's newest meta can be in when damage strikes. */
    enum MetaState {
        /** Closed cleanly: a steady meta, every page sealed. */
        CLEAN_CLOSE,
        /** SYNC commits, then the writer killed: a sealed meta whose durable revision is the one before. */
        SYNC_THEN_KILL,
        /** A checkpoint, NORMAL commits, then the writer killed: pages above the durable revision unsealed. */
        NORMAL_THEN_KILL
    }

    /**
     * The SEALED flag lies outside the checksum. Clearing it on any page the newest meta says is
     * sealed, alone or with a bit of the page's content flipped, must never pass unnoticed: the
     * store opens at an older revision that does not reach the page, or the page is reported
     * damaged. Every page kind (leaf, branch, overflow, free map), under every meta state; all
     * such pages in the long profile, an evenly spread sample in the short one.
     */
    @Test
    void aClearedSealFlagNeverHidesDamage() throws Exception {
        int perState = Profile.size("mvbt.damage.sealCases", 60, Integer.MAX_VALUE);
        Random random = new Random(7);
        int opened = 0;
        int detected = 0;
        Map<Integer, Integer> kinds = new TreeMap<>();
        for (MetaState state : MetaState.values()) {
            TreeMap<Long, Map<String, TreeMap<byte[], byte[]>>> models = new TreeMap<>();
            Path file = buildState(state, models);
            long newest;
            long sealedThrough;
            java.util.List<long[]> sealed = new java.util.ArrayList<>();
            try (Store store = Store.openReadOnly(file); Snapshot s = store.beginRead()) {
                newest = s.revision();
                sealedThrough = s.rev().sealedThrough;
                Revision r = s.rev();
                RevisionWalker.walk(s.reader(), r.catalog, r.fresh, RevisionWalker.freeMapOf(r, PAGE), -1,
                        (pageNo, revision, type, address, pages) -> {
                            if (revision <= sealedThrough) {
                                sealed.add(new long[] {pageNo, pages, type});
                            }
                        });
            }
            assertTrue(sealed.size() > 20, state + ": only " + sealed.size() + " sealed pages");
            int step = Math.max(1, sealed.size() / perState);
            for (int i = 0; i < sealed.size(); i += step) {
                long[] page = sealed.get(i);
                for (boolean changeContent : new boolean[] {false, true}) {
                    Path copy = dir.resolve("seal-case.mvbt");
                    Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
                    Files.deleteIfExists(dir.resolve("seal-case.mvbt-lock"));
                    String what = state + ", " + io.mvbt.btree.PageHeader.typeName((int) page[2]) + " page " + page[0]
                            + ": SEALED flag cleared" + (changeContent ? " and a content bit flipped" : "");
                    try (RandomAccessFile f = new RandomAccessFile(copy.toFile(), "rw")) {
                        long at = page[0] * PAGE + io.mvbt.btree.PageHeader.FLAGS;
                        f.seek(at);
                        int flags = f.read();
                        f.seek(at);
                        f.write(flags & ~io.mvbt.btree.PageHeader.FLAG_SEALED);
                        if (changeContent) {
                            long content = io.mvbt.btree.PageHeader.SIZE
                                    + (long) (random.nextDouble() * (page[1] * PAGE - io.mvbt.btree.PageHeader.SIZE));
                            flipBit(f, page[0] * PAGE + content, random);
                        }
                    }
                    // A reader in another process first (it recovers nothing), then a writer.
                    for (boolean readOnly : new boolean[] {true, false}) {
                        Future<Long> outcome = executor.submit(() -> openedRevision(copy, models, readOnly));
                        long revision;
                        String how = what + (readOnly ? ", read-only" : ", writer");
                        try {
                            revision = outcome.get(60, TimeUnit.SECONDS);
                        } catch (TimeoutException e) {
                            throw new AssertionError(how + ": hangs");
                        } catch (java.util.concurrent.ExecutionException e) {
                            throw new AssertionError(how + ": " + e.getCause(), e.getCause());
                        }
                        // Opened at the newest revision and read it whole without complaint: the damage hid.
                        assertTrue(revision != newest, how + ": went unnoticed");
                        if (revision < 0) {
                            detected++;
                        } else {
                            opened++;
                        }
                    }
                    kinds.merge((int) page[2], 1, Integer::sum);
                }
            }
        }
        System.out.println("cleared seal flags: " + (opened + detected) + " opens of " + kinds + " damaged pages (by"
                + " page type), "
                + detected + " CorruptionExceptions, " + opened + " opened at an older revision that does not"
                + " reach the page, 0 unnoticed");
    }

    /** A store whose newest meta is in {@code state}; the data of each revision goes to {@code models}. */
    private static Path buildState(MetaState state, TreeMap<Long, Map<String, TreeMap<byte[], byte[]>>> models)
            throws IOException {
        Path path = dir.resolve(state + ".mvbt");
        Path killed = dir.resolve(state + "-killed.mvbt");
        Random random = new Random(state.ordinal() + 10);
        Map<String, TreeMap<byte[], byte[]>> model = new HashMap<>();
        Durability durability = state == MetaState.SYNC_THEN_KILL ? Durability.SYNC : Durability.NORMAL;
        try (Store store = Store.open(path, StoreOptions.defaults().durability(durability))) {
            for (int commit = 0; commit < 8; commit++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent("t");
                    TreeMap<byte[], byte[]> m = model.computeIfAbsent("t", n -> ModelHarness.newMap());
                    // After the checkpoint, small commits: most pages stay sealed.
                    int puts = state == MetaState.NORMAL_THEN_KILL && commit > 4 ? 5 : 150;
                    for (int i = 0; i < puts; i++) {
                        byte[] k = String.format("k-%05d", random.nextInt(3000)).getBytes();
                        byte[] v = new byte[random.nextInt(30) == 0 ? 9000 : random.nextInt(120)];
                        random.nextBytes(v);
                        tx.put(t, k, v);
                        m.put(k, v);
                    }
                    tx.commit();
                    models.put(tx.revision(), ModelHarness.deepCopy(model));
                }
                if (state == MetaState.NORMAL_THEN_KILL && commit == 4) {
                    store.sync();
                }
            }
            if (state != MetaState.CLEAN_CLOSE) {
                // What a kill leaves: the file as the page cache holds it, no close.
                Files.copy(path, killed, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return state == MetaState.CLEAN_CLOSE ? path : killed;
    }

    /** The revision the store opened at, its data checked against the model; -1 if damage was reported. */
    private static long openedRevision(Path copy, TreeMap<Long, Map<String, TreeMap<byte[], byte[]>>> models,
            boolean readOnly) {
        try (Store store = readOnly ? Store.openReadOnly(copy) : Store.open(copy)) {
            long revision;
            try (Snapshot s = store.beginRead()) {
                revision = s.revision();
                TreeMap<byte[], byte[]> m = models.floorEntry(revision).getValue().get("t");
                String diff = CrashWorkload.difference(s, store.tree("t"), m);
                if (diff != null) {
                    throw new AssertionError("wrong data at revision " + revision + ": " + diff);
                }
            }
            return store.check().ok() ? revision : -1;
        } catch (CorruptionException e) {
            return -1;
        }
    }

    /** "clean" when the store opened and held the data of a committed revision, "corrupt" when detected. */
    private static String openAndRead(Path copy) {
        try (Store store = Store.open(copy)) {
            try (Snapshot s = store.beginRead()) {
                Map<String, TreeMap<byte[], byte[]>> model = MODELS.floorEntry(s.revision()) == null ? null
                        : MODELS.floorEntry(s.revision()).getValue();
                for (String name : new String[] {"a", "b"}) {
                    Tree tree = store.tree(name);
                    TreeMap<byte[], byte[]> m = model == null ? null : model.get(name);
                    if (m == null) {
                        if (s.hasTree(tree)) {
                            throw new AssertionError("revision " + s.revision() + " has tree " + name
                                    + " that it should not");
                        }
                        continue;
                    }
                    String diff = CrashWorkload.difference(s, tree, m);
                    if (diff != null) {
                        throw new AssertionError("wrong data at revision " + s.revision() + ", tree " + name + ": "
                                + diff);
                    }
                    for (byte[] k : m.keySet()) {
                        if (!Arrays.equals(s.get(tree, k), m.get(k))) {
                            throw new AssertionError("wrong get at revision " + s.revision());
                        }
                    }
                }
            }
            CheckReport report = store.check();
            return report.ok() ? "clean" : "corrupt";
        } catch (CorruptionException e) {
            return "corrupt";
        }
    }

    private static String damage(Path file, Random random) throws IOException {
        long size = Files.size(file);
        long pages = size / PAGE;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            switch (random.nextInt(8)) {
                case 0: {
                    int flips = 1 + random.nextInt(8);
                    for (int i = 0; i < flips; i++) {
                        flipBit(f, (long) (random.nextDouble() * size), random);
                    }
                    return flips + " bit flips";
                }
                case 1: {
                    long page = random.nextInt((int) pages);
                    f.seek(page * PAGE);
                    f.write(new byte[PAGE]);
                    return "page " + page + " zeroed";
                }
                case 2: {
                    long at = (long) (random.nextDouble() * size);
                    byte[] junk = new byte[1 + random.nextInt(512)];
                    random.nextBytes(junk);
                    f.seek(at);
                    f.write(junk);
                    return junk.length + " garbage bytes at " + at;
                }
                case 3: {
                    long length = 1 + (long) (random.nextDouble() * (size - 1));
                    f.setLength(length);
                    return "truncated to " + length;
                }
                case 4: {
                    long from = random.nextInt((int) pages);
                    long to = random.nextInt((int) pages);
                    byte[] page = new byte[PAGE];
                    f.seek(from * PAGE);
                    f.readFully(page);
                    f.seek(to * PAGE);
                    f.write(page);
                    return "page " + from + " copied over page " + to;
                }
                case 5: {
                    try (RandomAccessFile o = new RandomAccessFile(other.toFile(), "r")) {
                        long otherPages = o.length() / PAGE;
                        long from = random.nextInt((int) otherPages);
                        long to = random.nextInt((int) pages);
                        byte[] page = new byte[PAGE];
                        o.seek(from * PAGE);
                        o.readFully(page);
                        f.seek(to * PAGE);
                        f.write(page);
                        return "page " + from + " of another store spliced over page " + to;
                    }
                }
                case 6: {
                    // The SEALED flag lies outside the checksum: cleared, with or without the content changed.
                    long page = META_SLOTS + random.nextInt((int) pages - META_SLOTS);
                    f.seek(page * PAGE + io.mvbt.btree.PageHeader.FLAGS);
                    int flags = f.read();
                    f.seek(page * PAGE + io.mvbt.btree.PageHeader.FLAGS);
                    f.write(flags & ~io.mvbt.btree.PageHeader.FLAG_SEALED);
                    boolean content = random.nextBoolean();
                    if (content) {
                        flipBit(f, page * PAGE + io.mvbt.btree.PageHeader.SIZE
                                + random.nextInt(PAGE - io.mvbt.btree.PageHeader.SIZE), random);
                    }
                    return "SEALED flag of page " + page + " cleared" + (content ? ", a content bit flipped" : "");
                }
                default: {
                    int flips = 1 + random.nextInt(4);
                    for (int i = 0; i < flips; i++) {
                        flipBit(f, random.nextInt(4 * PAGE), random);
                    }
                    return flips + " bit flips in the meta slots";
                }
            }
        }
    }

    private static void flipBit(RandomAccessFile f, long at, Random random) throws IOException {
        f.seek(at);
        int b = f.read();
        f.seek(at);
        f.write(b ^ (1 << random.nextInt(8)));
    }
}
