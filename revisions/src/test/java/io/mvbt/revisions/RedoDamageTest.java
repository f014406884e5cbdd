// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.mvbt.CorruptionException;

/**
 * A redo log damaged in every way the independent check tried (issue 44), in the two states a store
 * is found in: the file as it was before the commits beside the synced segments (a power cut that
 * lost every page: only the log holds the commits), and the file a {@code kill -9} left (the
 * store holds them all). With several segments and with one. An open either holds every
 * acknowledged commit, or refuses with a {@link CorruptionException} naming the segment and leaves
 * every file byte for byte as it was; never fewer commits without a word.
 */
class RedoDamageTest {
    private static final StoreOptions LOGGED = StoreOptions.defaults().durability(Durability.NORMAL)
            .checkpointInterval(Duration.ofHours(1)).redoLog(true);
    private static final StoreOptions PLAIN = StoreOptions.defaults().checkpointInterval(Duration.ofHours(1));

    /** How the log was laid out, and the files of each state. */
    enum Layout {
        SEVERAL(32 << 10, 600), ONE(64L << 20, 300);

        final long segmentBytes;
        final int commits;
        /** File name to bytes: the store file before the commits, and every segment after them. */
        Map<String, byte[]> powerCut;
        /** File name to bytes, as a killed writer left them. */
        Map<String, byte[]> killed;

        Layout(long segmentBytes, int commits) {
            this.segmentBytes = segmentBytes;
            this.commits = commits;
        }
    }

    enum State {
        POWER_CUT, KILLED
    }

    enum Outcome {
        REFUSED, COMPLETE
    }

    @TempDir
    static Path work;

    @BeforeAll
    static void writeTheLogs() throws IOException {
        for (Layout layout : Layout.values()) {
            RedoLog.segmentBytes = layout.segmentBytes;
            Path dir = Files.createDirectories(work.resolve("fixture-" + layout));
            Path file = dir.resolve("s.mvbt");
            try (Store store = Store.open(file, LOGGED)) {
                byte[] before = Files.readAllBytes(file);
                for (int i = 0; i < layout.commits; i++) {
                    try (WriteTxn tx = store.beginWrite()) {
                        tx.put(tx.createTreeIfAbsent("t"), key(i), value(i));
                        tx.commit(Durability.SYNC);
                    }
                }
                layout.killed = files(dir);
                layout.powerCut = new TreeMap<>(layout.killed);
                layout.powerCut.put("s.mvbt", before);
            }
            assertTrue(layout.killed.size() > (layout == Layout.SEVERAL ? 4 : 1), layout + ": " + layout.killed.keySet());
        }
        RedoLog.segmentBytes = 64L << 20;
    }

    @AfterAll
    static void restore() {
        RedoLog.segmentBytes = 64L << 20;
    }

    /** Every 10th value 2 KB, every 100th 20 KB (in overflow pages), the rest small. */
    private static byte[] value(int i) {
        byte[] v = new byte[i % 100 == 0 ? 20_000 : i % 10 == 0 ? 2_000 : 30];
        for (int j = 0; j < v.length; j++) {
            v[j] = (byte) (i * 31 + j);
        }
        return v;
    }

    private static Map<String, byte[]> files(Path dir) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : (Iterable<Path>) list::iterator) {
                String name = p.getFileName().toString();
                if (!name.endsWith("-lock")) {
                    files.put(name, Files.readAllBytes(p));
                }
            }
        }
        return files;
    }

    /**
     * One way to damage the log: a name, the layout it needs (or null), what the open must do in
     * each state, and what it does to the files of a store.
     */
    record Damage(String name, Layout only, Expect expect, Editor edit) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** What an open must do beside the damage, besides never opening with fewer commits. */
    enum Expect {
        /** Refuse without the pages (only the log holds the commits); open whole beside a killed writer's file. */
        REFUSE_THEN_OPEN,
        /** Refuse in both states: what the damage hit cannot be told. */
        REFUSE,
        /** Open whole in both states: the damage hit nothing a commit needs. */
        OPEN
    }

    @FunctionalInterface
    interface Editor {
        void edit(Files2 files);
    }

    /** The files of one case, with the segments in order. */
    static final class Files2 {
        final TreeMap<String, byte[]> files;

        Files2(Map<String, byte[]> files) {
            this.files = new TreeMap<>();
            files.forEach((name, bytes) -> this.files.put(name, bytes.clone()));
        }

        List<String> segments() {
            List<String> names = new ArrayList<>();
            for (String name : files.keySet()) {
                if (name.contains(".redo-")) {
                    names.add(name);
                }
            }
            return names;
        }

        String newest() {
            List<String> s = segments();
            return s.get(s.size() - 1);
        }

        String oldest() {
            return segments().get(0);
        }

        byte[] bytes(String name) {
            return files.get(name);
        }

        /** Byte offsets of the records of a segment, in order (its NEXT record included). */
        List<Integer> records(String name) {
            byte[] b = files.get(name);
            ByteBuffer view = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            List<Integer> at = new ArrayList<>();
            int p = RedoLog.HEADER_BYTES;
            while (p + RedoLog.RECORD_HEAD_BYTES <= b.length && view.getInt(p) > 0) {
                at.add(p);
                p += RedoLog.RECORD_HEAD_BYTES + view.getInt(p);
            }
            return at;
        }

        /** The records of a commit (not a NEXT) in a segment. */
        List<Integer> commitRecords(String name) {
            List<Integer> at = new ArrayList<>(records(name));
            byte[] b = files.get(name);
            at.removeIf(p -> b[p + RedoLog.RECORD_HEAD_BYTES] != RedoLog.OPS);
            return at;
        }

        void flip(String name, int at) {
            files.get(name)[at] ^= 0x10;
        }

        void cut(String name, int length) {
            files.put(name, Arrays.copyOf(files.get(name), length));
        }

        void zero(String name, int at, int length) {
            Arrays.fill(files.get(name), at, at + length, (byte) 0);
        }
    }

    static List<Damage> damages() {
        List<Damage> d = new ArrayList<>();
        d.add(new Damage("bit in the first record of the newest segment", null, Expect.REFUSE_THEN_OPEN, f -> {
            String n = f.newest();
            f.flip(n, f.commitRecords(n).get(0) + 20);
        }));
        d.add(new Damage("bit in a middle record of the newest segment", null, Expect.REFUSE_THEN_OPEN, f -> {
            String n = f.newest();
            List<Integer> r = f.commitRecords(n);
            f.flip(n, r.get(r.size() / 2) + 20);
        }));
        d.add(new Damage("bit in the last record of the newest segment", null, Expect.REFUSE_THEN_OPEN, f -> {
            String n = f.newest();
            List<Integer> r = f.commitRecords(n);
            f.flip(n, r.get(r.size() - 1) + 20);
        }));
        d.add(new Damage("bit in the length of a middle record", null, Expect.REFUSE_THEN_OPEN, f -> {
            String n = f.newest();
            List<Integer> r = f.commitRecords(n);
            f.flip(n, r.get(r.size() / 2) + 1);
        }));
        d.add(new Damage("newest segment's magic", null, Expect.REFUSE, f -> f.flip(f.newest(), 2)));
        d.add(new Damage("newest segment's revision field", null, Expect.REFUSE, f -> f.flip(f.newest(), 17)));
        for (int length : new int[] {0, 20, RedoLog.HEADER_BYTES}) {
            d.add(new Damage("newest segment cut to " + length + " bytes", null, Expect.REFUSE, f -> f.cut(f.newest(), length)));
        }
        d.add(new Damage("newest segment cut mid-record", null, Expect.REFUSE, f -> {
            String n = f.newest();
            List<Integer> r = f.commitRecords(n);
            f.cut(n, r.get(r.size() / 2) + 11);
        }));
        d.add(new Damage("newest segment cut at a record boundary", null, Expect.REFUSE, f -> {
            String n = f.newest();
            List<Integer> r = f.commitRecords(n);
            f.cut(n, r.get(r.size() / 2));
        }));
        d.add(new Damage("64 bytes zeroed at the start of the newest segment", null, Expect.REFUSE, f -> f.zero(f.newest(), 0, 64)));
        d.add(new Damage("64 bytes zeroed in the newest segment", null, Expect.REFUSE_THEN_OPEN, f -> {
            String n = f.newest();
            List<Integer> r = f.commitRecords(n);
            f.zero(n, r.get(r.size() / 2) + 5, 64);
        }));
        d.add(new Damage("newest segment deleted", null, Expect.REFUSE, f -> f.files.remove(f.newest())));
        d.add(new Damage("newest segment renamed", null, Expect.REFUSE, f -> {
            String n = f.newest();
            byte[] b = f.files.remove(n);
            f.files.put(n.substring(0, n.length() - 4) + "ffff", b);
        }));
        d.add(new Damage("garbage appended to the newest segment", null, Expect.OPEN, f -> {
            String n = f.newest();
            byte[] b = f.bytes(n);
            byte[] longer = Arrays.copyOf(b, b.length + 1000);
            for (int i = b.length; i < longer.length; i++) {
                longer[i] = (byte) (i * 7 + 3);
            }
            f.files.put(n, longer);
        }));
        d.add(new Damage("oldest segment's header", Layout.SEVERAL, Expect.REFUSE_THEN_OPEN, f -> f.flip(f.oldest(), 9)));
        d.add(new Damage("bit in a record of the oldest segment", Layout.SEVERAL, Expect.REFUSE_THEN_OPEN, f -> {
            String o = f.oldest();
            f.flip(o, f.commitRecords(o).get(1) + 20);
        }));
        d.add(new Damage("an older segment deleted", Layout.SEVERAL, Expect.REFUSE_THEN_OPEN, f -> f.files.remove(f.segments().get(1))));
        d.add(new Damage("two older segments swapped", Layout.SEVERAL, Expect.REFUSE_THEN_OPEN, f -> {
            List<String> s = f.segments();
            byte[] a = f.bytes(s.get(1));
            f.files.put(s.get(1), f.bytes(s.get(2)));
            f.files.put(s.get(2), a);
        }));
        d.add(new Damage("an empty file between segments", Layout.SEVERAL, Expect.OPEN, f -> {
            String s = f.segments().get(1);
            long first = Long.parseUnsignedLong(s.substring(s.length() - 16), 16);
            f.files.put(s.substring(0, s.length() - 16) + String.format("%016x", first + 1), new byte[0]);
        }));
        d.add(new Damage("another store's segment in place of the oldest", Layout.SEVERAL, Expect.REFUSE, f -> {
            byte[] foreign = f.bytes(f.oldest()).clone();
            foreign[8] ^= 1;
            ByteBuffer header = ByteBuffer.wrap(foreign).order(ByteOrder.LITTLE_ENDIAN);
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(foreign, 0, RedoLog.HEADER_BYTES - 4);
            header.putInt(RedoLog.HEADER_BYTES - 4, (int) crc.getValue());
            f.files.put(f.oldest(), foreign);
        }));
        return d;
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Damage damage : damages()) {
            for (Layout layout : Layout.values()) {
                if (damage.only() == null || damage.only() == layout) {
                    for (State state : State.values()) {
                        cases.add(Arguments.of(damage, layout, state));
                    }
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, {1} segment(s), {2}")
    @MethodSource("cases")
    void anOpenHoldsEveryAcknowledgedCommitOrRefusesAndWritesNothing(Damage damage, Layout layout, State state)
            throws IOException {
        Files2 files = new Files2(state == State.POWER_CUT ? layout.powerCut : layout.killed);
        damage.edit().edit(files);
        Path dir = Files.createDirectories(work.resolve("case-" + System.nanoTime()));
        for (Map.Entry<String, byte[]> e : files.files.entrySet()) {
            Files.write(dir.resolve(e.getKey()), e.getValue());
        }
        Map<String, byte[]> before = files(dir);
        Outcome outcome = open(dir.resolve("s.mvbt"), layout.commits, PLAIN);
        if (outcome == Outcome.REFUSED) {
            Map<String, byte[]> after = files(dir);
            assertEquals(before.keySet(), after.keySet(), "a refused open left other files");
            for (String name : before.keySet()) {
                assertArrayEquals(before.get(name), after.get(name), "a refused open wrote to " + name);
            }
        }
        Outcome expected = switch (damage.expect()) {
            case REFUSE -> Outcome.REFUSED;
            case OPEN -> Outcome.COMPLETE;
            case REFUSE_THEN_OPEN -> state == State.POWER_CUT ? Outcome.REFUSED : Outcome.COMPLETE;
        };
        assertEquals(expected, outcome, damage + " (" + state + ")");
    }

    /** The operator's choice: replay up to the damage, keep the segments aside, and say so. */
    @Test
    void anOperatorMayOpenWithWhatCanBeRead() throws IOException {
        Files2 files = new Files2(Layout.SEVERAL.powerCut);
        String newest = files.newest();
        List<Integer> records = files.commitRecords(newest);
        files.flip(newest, records.get(records.size() / 2) + 20);
        Path dir = Files.createDirectories(work.resolve("operator"));
        for (Map.Entry<String, byte[]> e : files.files.entrySet()) {
            Files.write(dir.resolve(e.getKey()), e.getValue());
        }
        Path file = dir.resolve("s.mvbt");
        assertEquals(Outcome.REFUSED, open(file, Layout.SEVERAL.commits, PLAIN), "refused by default");
        try (Store store = Store.open(file, PLAIN.replayUntilLogDamage(true))) {
            store.check().throwIfDamaged();
            long count;
            try (Snapshot s = store.beginRead()) {
                count = s.count(store.tree("t"));
                for (int i = 0; i < count; i++) {
                    assertArrayEquals(value(i), s.get(store.tree("t"), key(i)), "value " + i);
                }
            }
            assertTrue(count > 0 && count < Layout.SEVERAL.commits, "replayed up to the damage: " + count);
            assertTrue(store.droppedRevisions().stream().anyMatch(d -> d.contains("redo log is damaged")),
                    store.droppedRevisions().toString());
        }
        Map<String, byte[]> left = files(dir);
        assertEquals(files.segments().size(), left.keySet().stream().filter(n -> n.endsWith(".damaged")).count(),
                "every segment set aside: " + left.keySet());
        assertTrue(left.keySet().stream().noneMatch(n -> n.matches(".*\\.redo-[0-9a-f]{16}")), left.keySet().toString());
    }

    /** Opens the store: every commit there, or a refusal that names a segment. */
    private static Outcome open(Path file, int commits, StoreOptions options) {
        try (Store store = Store.open(file, options)) {
            store.check().throwIfDamaged();
            Tree t = store.tree("t");
            try (Snapshot s = store.beginRead()) {
                assertEquals(commits, s.count(t), "opened with commits missing");
                for (int i = 0; i < commits; i += 7) {
                    assertArrayEquals(value(i), s.get(t, key(i)), "value " + i);
                }
                assertArrayEquals(value(commits - 1), s.get(t, key(commits - 1)), "the last commit");
            }
            return Outcome.COMPLETE;
        } catch (CorruptionException e) {
            assertTrue(e.getMessage().contains(".redo-") || e.getMessage().contains("redo log"), e.getMessage());
            assertTrue(!e.getMessage().contains("revision -1"), e.getMessage());
            return Outcome.REFUSED;
        } catch (UncheckedIOException e) {
            fail("a raw I/O failure: " + e);
            return Outcome.REFUSED;
        }
    }
}
