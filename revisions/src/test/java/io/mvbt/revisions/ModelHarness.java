// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.btree.Node;
import io.mvbt.btree.TreeLimits;
import io.mvbt.testkit.AscendingKeys;
import io.mvbt.testkit.CallerBuffers;
import io.mvbt.testkit.Shrink;

/**
 * Our own model-based random testing, as H2's TestRandomMapOps and bbolt do: a seed generates a
 * list of operations; the list runs against a store and against a model (a TreeMap per tree, and a
 * copy of the model for every open snapshot); any difference fails with the seed. A failing list is
 * shrunk by dropping operations while it still fails, and the minimal list is printed.
 *
 * <p>Operations carry their random choices, and their meaning depends only on the state when they
 * run (a snapshot is picked by number modulo the open ones), so any sub-list is runnable.
 *
 * <p>Keys and values reach the store as {@code byte[]} or in a buffer of every kind a caller may pass
 * ({@link CallerBuffers}), drawn per operation from its high pick bits.
 */
final class ModelHarness {
    enum Kind {
        PUT, DELETE, DELETE_RUN, DELETE_RANGE, BULK_LOAD, BULK_LOAD_OPEN, COMMIT_SYNC, COMMIT_NORMAL, ABORT,
        OPEN_SNAPSHOT, CLOSE_SNAPSHOT, CHECK_SNAPSHOT, CURSOR_WALK, CREATE_TREE, DROP_TREE, REOPEN, CHECK_STORE
    }

    /** One operation with its random choices. */
    record Op(Kind kind, int tree, int key, int value, int pick) {
        @Override
        public String toString() {
            return kind + "(tree=" + tree + ", key=" + key + ", value=" + value + ", pick=" + pick + ")";
        }
    }

    /**
     * A one-letter name, one of the longest allowed (255 UTF-8 bytes, one character of two), and
     * one with a character outside the BMP (a surrogate pair).
     */
    static final String[] TREES = {"a", "b", "long-\u00fc-" + "x".repeat(Tree.MAX_NAME_BYTES - 8),
        "pair-\uD83D\uDE00"};
    static final int KEYS = 400;

    /** Where a run keeps its store. */
    interface Storage {
        /** Opens (or creates) the store of the run that owns {@code dir}, an empty directory of its own. */
        Store open(Path dir, StoreOptions options);

        /** Whether the store survives a close, so that runs reopen it. */
        boolean durable();

        String describe();
    }

    static final Storage MEMORY = new Storage() {
        @Override
        public Store open(Path dir, StoreOptions options) {
            return Store.inMemory(options);
        }

        @Override
        public boolean durable() {
            return false;
        }

        @Override
        public String describe() {
            return "memory";
        }
    };

    static final Storage FILE = new Storage() {
        @Override
        public Store open(Path dir, StoreOptions options) {
            return Store.open(dir.resolve("model.mvbt"), options);
        }

        @Override
        public boolean durable() {
            return true;
        }

        @Override
        public String describe() {
            return "file";
        }
    };

    /** A file whose writer keeps its pages in a shadow until their checkpoint ({@link DirtyPages}). */
    static final Storage SHADOWED = new Storage() {
        @Override
        public Store open(Path dir, StoreOptions options) {
            Path shadows = dir.resolve("shm");
            try {
                java.nio.file.Files.createDirectories(shadows);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return Store.open(dir.resolve("model.mvbt"), options.shadowDirectory(shadows));
        }

        @Override
        public boolean durable() {
            return true;
        }

        @Override
        public String describe() {
            return "file with a shadow";
        }
    };

    /** A file whose writer keeps a redo log ({@link RedoLog}). */
    static final Storage LOGGED = new Storage() {
        @Override
        public Store open(Path dir, StoreOptions options) {
            return Store.open(dir.resolve("model.mvbt"), options.redoLog(true));
        }

        @Override
        public boolean durable() {
            return true;
        }

        @Override
        public String describe() {
            return "file with a redo log";
        }
    };

    private final Storage storage;
    private final boolean file;
    private final int pageSize;
    /** Whether a snapshot check also diffs snapshots against each other and the newest revision. */
    private boolean checkDiffs;

    ModelHarness(boolean file, int pageSize) {
        this(file ? FILE : MEMORY, pageSize);
    }

    ModelHarness(Storage storage, int pageSize) {
        this.storage = storage;
        this.file = storage.durable();
        this.pageSize = pageSize;
    }

    /** Makes every snapshot check diff open snapshots and the newest revision against the models too. */
    ModelHarness checkingDiffs() {
        checkDiffs = true;
        return this;
    }

    /** The operations a seed stands for. */
    static List<Op> generate(long seed, int count, boolean file) {
        Random r = new Random(seed);
        List<Op> ops = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int x = r.nextInt(1000);
            Kind kind;
            if (x < 450) {
                kind = Kind.PUT;
            } else if (x < 600) {
                kind = Kind.DELETE;
            } else if (x < 615) {
                kind = Kind.DELETE_RUN;
            } else if (x < 680) {
                kind = Kind.COMMIT_NORMAL;
            } else if (x < 700) {
                kind = Kind.COMMIT_SYNC;
            } else if (x < 720) {
                kind = Kind.ABORT;
            } else if (x < 760) {
                kind = Kind.OPEN_SNAPSHOT;
            } else if (x < 790) {
                kind = Kind.CLOSE_SNAPSHOT;
            } else if (x < 830) {
                kind = Kind.CHECK_SNAPSHOT;
            } else if (x < 900) {
                kind = Kind.CURSOR_WALK;
            } else if (x < 915) {
                kind = Kind.CREATE_TREE;
            } else if (x < 922) {
                kind = Kind.DROP_TREE;
            } else if (x < 935) {
                kind = file ? Kind.REOPEN : Kind.CHECK_STORE;
            } else if (x < 945) {
                kind = Kind.CHECK_STORE;
            } else if (x < 965) {
                kind = Kind.DELETE_RANGE;
            } else if (x < 972) {
                kind = Kind.BULK_LOAD;
            } else if (x < 978) {
                kind = Kind.BULK_LOAD_OPEN;
            } else {
                kind = Kind.PUT;
            }
            ops.add(new Op(kind, r.nextInt(TREES.length), r.nextInt(KEYS), r.nextInt(1000), r.nextInt(1 << 20)));
        }
        return ops;
    }

    /** Runs a list; throws AssertionError (or whatever the store threw) on the first difference. */
    void run(List<Op> ops) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("mvbt-model");
            new Execution(dir).run(ops);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    /** Runs a seed; on failure shrinks and rethrows with the seed and the minimal list. */
    void check(long seed, int count) {
        List<Op> ops = generate(seed, count, file);
        Throwable failure = failure(ops);
        if (failure == null) {
            return;
        }
        List<Op> minimal = shrink(ops);
        Throwable minimalFailure = failure(minimal);
        StringBuilder text = new StringBuilder("model test failed: seed " + seed + " (" + storage.describe()
                + " store, page size " + pageSize + "), replay with -Dmvbt.seed=" + seed + "; shrunk from "
                + ops.size() + " to " + minimal.size() + " operations:");
        for (Op op : minimal) {
            text.append("\n  ").append(op);
        }
        AssertionError error = new AssertionError(text.toString(), minimalFailure != null ? minimalFailure : failure);
        throw error;
    }

    private Throwable failure(List<Op> ops) {
        try {
            run(ops);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /** Drops chunks of operations while the list still fails. */
    List<Op> shrink(List<Op> ops) {
        return Shrink.failing(ops, candidate -> failure(candidate) != null);
    }

    // ------------------------------------------------------------------ one run

    private final class Execution {
        private final Path dir;
        private Store store;
        private WriteTxn txn;
        /** Committed state: tree name to entries (absent tree: no key). */
        private Map<String, TreeMap<byte[], byte[]>> committed = new HashMap<>();
        /** State the open transaction sees. */
        private Map<String, TreeMap<byte[], byte[]>> working;
        private final List<Snapshot> snapshots = new ArrayList<>();
        private final List<Map<String, TreeMap<byte[], byte[]>>> snapshotModels = new ArrayList<>();
        private final Tree[] handles = new Tree[TREES.length];
        /** A bulk load left open while the transaction goes on, and the tree it loads. */
        private BulkLoad openLoad;
        private String openLoadTree;
        private int step;

        Execution(Path dir) {
            this.dir = dir;
        }

        void run(List<Op> ops) {
            open();
            try {
                for (Op op : ops) {
                    apply(op);
                    step++;
                }
                finishTxn(false);
                checkAllSnapshots();
                verifyAll(committedView(), "end");
                store.check().throwIfDamaged();
            } finally {
                for (Snapshot s : snapshots) {
                    s.close();
                }
                if (txn != null) {
                    txn.close();
                }
                store.close();
            }
            if (file) {
                // Whatever was committed survives a clean close.
                open();
                try {
                    verifyAll(committedView(), "after reopen");
                    store.check().throwIfDamaged();
                } finally {
                    store.close();
                }
            }
        }

        /**
         * The handle of a tree, from the first Store object of the run: after a reopen, handles of
         * a closed store must still reach their trees.
         */
        private Tree handle(int tree) {
            if (handles[tree] == null) {
                handles[tree] = store.tree(TREES[tree]);
            }
            return handles[tree];
        }

        private void open() {
            StoreOptions options = StoreOptions.defaults().pageSize(pageSize).durability(Durability.NORMAL);
            store = storage.open(dir, options);
        }

        private Map<String, TreeMap<byte[], byte[]>> committedView() {
            return committed;
        }

        private Map<String, TreeMap<byte[], byte[]>> view() {
            return txn != null ? working : committed;
        }

        private WriteTxn txn() {
            if (txn == null) {
                txn = store.beginWrite();
                working = deepCopy(committed);
            }
            return txn;
        }

        private void finishTxn(boolean abort) {
            openLoad = null;
            if (txn == null) {
                return;
            }
            if (abort) {
                txn.abort();
            } else {
                txn.commit();
                committed = working;
            }
            txn = null;
            working = null;
        }

        private void apply(Op op) {
            String name = TREES[op.tree()];
            Tree tree = handle(op.tree());
            if (openLoad != null && name.equals(openLoadTree) && op.kind() != Kind.BULK_LOAD_OPEN && usesTheTree(op)) {
                // The tree takes no other write while its load is open, and such a write changes nothing.
                if (op.kind() == Kind.PUT) {
                    try {
                        txn.put(tree, key(op.key()), new byte[1]);
                        throw new AssertionError("step " + step + ": a put into a tree with an open load was taken");
                    } catch (IllegalStateException expected) {
                        // As documented.
                    }
                }
                openLoad.close();
                openLoad = null;
            }
            switch (op.kind()) {
                case PUT -> {
                    WriteTxn t = txn();
                    TreeMap<byte[], byte[]> m = working.get(name);
                    if (m == null) {
                        return;
                    }
                    byte[] k = key(op.key());
                    byte[] v = value(op.value(), op.pick(), k.length);
                    CallerBuffers kind = bufferKind(op);
                    boolean inserted = kind == null ? t.put(tree, k, v) : t.put(tree, kind.wrap(k), kind.wrap(v));
                    expect(inserted == !m.containsKey(k), "put reports new=" + inserted);
                    m.put(k, v);
                }
                case DELETE -> {
                    WriteTxn t = txn();
                    TreeMap<byte[], byte[]> m = working.get(name);
                    if (m == null) {
                        return;
                    }
                    byte[] k = key(op.key());
                    CallerBuffers kind = bufferKind(op);
                    boolean deleted = kind == null ? t.delete(tree, k) : t.delete(tree, kind.wrap(k));
                    expect(deleted == m.containsKey(k), "delete reports found=" + deleted);
                    m.remove(k);
                }
                case DELETE_RUN -> {
                    WriteTxn t = txn();
                    TreeMap<byte[], byte[]> m = working.get(name);
                    if (m == null) {
                        return;
                    }
                    // Deletes a run of neighbouring keys, emptying whole pages.
                    int length = 1 + op.value() % 150;
                    Iterator<byte[]> it = m.tailMap(key(op.key()), true).keySet().iterator();
                    for (int i = 0; i < length && it.hasNext(); i++) {
                        byte[] k = it.next();
                        expect(t.delete(tree, k), "delete of a present key");
                        it.remove();
                    }
                }
                case DELETE_RANGE -> {
                    WriteTxn t = txn();
                    TreeMap<byte[], byte[]> m = working.get(name);
                    if (m == null) {
                        return;
                    }
                    // Empty ranges, single keys, runs within a leaf, whole subtrees, the whole tree.
                    byte[] from = key(op.key());
                    byte[] to;
                    int shape = op.pick() % 9;
                    byte[][] keys = shape >= 6 && !m.isEmpty() ? m.keySet().toArray(new byte[0][]) : null;
                    if (shape == 0) {
                        to = from;
                    } else if (shape == 1 && m.higherKey(from) != null) {
                        to = m.higherKey(from);
                    } else if (shape == 2) {
                        from = new byte[0];
                        to = maxKey();
                    } else if (shape == 3) {
                        // A prefix of the tree: its first children go, the rest stays.
                        to = from;
                        from = new byte[0];
                    } else if (shape == 4) {
                        to = maxKey();
                    } else if (keys != null) {
                        // By position, so that loaded keys are cut too: one key, a leaf or so, subtrees.
                        int i = op.value() % keys.length;
                        int[] widths = {1, 8, 60, 400};
                        int j = Math.min(keys.length - 1, i + widths[op.key() % widths.length]);
                        from = keys[i];
                        to = keys[j];
                        if (shape == 7) {
                            // Bounds between keys as well as on them.
                            from = Arrays.copyOf(from, Math.min(pageSize / 4, from.length + 1));
                            to = to.length > 0 ? Arrays.copyOf(to, to.length - 1) : to;
                        }
                    } else {
                        to = key((op.key() + 1 + op.value() % 300) % KEYS);
                    }
                    if (java.util.Arrays.compareUnsigned(from, to) > 0) {
                        byte[] swap = from;
                        from = to;
                        to = swap;
                    }
                    var range = m.subMap(from, true, to, false);
                    long expected = range.size();
                    long deleted = t.deleteRange(tree, from, to);
                    expect(deleted == expected, "deleteRange removed " + deleted + ", model " + expected);
                    range.clear();
                }
                case BULK_LOAD, BULK_LOAD_OPEN -> {
                    WriteTxn t = txn();
                    TreeMap<byte[], byte[]> m = working.get(name);
                    if (m == null) {
                        return;
                    }
                    boolean keepOpen = op.kind() == Kind.BULK_LOAD_OPEN;
                    BulkLoad load;
                    if (openLoad != null && name.equals(openLoadTree)) {
                        load = openLoad;
                    } else {
                        if (openLoad != null) {
                            openLoad.close();
                            openLoad = null;
                        }
                        double fill = switch (op.pick() % 4) {
                            case 0 -> 1.0;
                            case 1 -> 0.01;
                            default -> 0.5 + (op.pick() % 50) / 100.0;
                        };
                        load = t.bulkLoad(tree, fill);
                    }
                    // Keys above the tree's last key, of lengths drawn as for every key.
                    Random r = new Random(op.pick() * 31L + op.value());
                    int n = op.value() % 3 == 0 ? 1 + op.value() % 400 : 1 + op.value() % 20;
                    byte[] last = m.isEmpty() ? null : m.lastKey();
                    for (int i = 0; i < n; i++) {
                        byte[] k = above(last, r);
                        if (k == null) {
                            break;
                        }
                        byte[] v = value((op.value() + 7 * i) % 1000, op.pick() + i, k.length);
                        CallerBuffers kind = CallerBuffers.drawn(op.pick() + i);
                        if (kind == null) {
                            load.add(k, v);
                        } else {
                            load.add(kind.wrap(k), kind.wrap(v));
                        }
                        m.put(k, v);
                        last = k;
                    }
                    if (keepOpen) {
                        openLoad = load;
                        openLoadTree = name;
                    } else {
                        load.close();
                        openLoad = null;
                    }
                }
                case COMMIT_SYNC, COMMIT_NORMAL -> {
                    if (txn != null) {
                        // A commit ends an open bulk load.
                        openLoad = null;
                        txn.commit(op.kind() == Kind.COMMIT_SYNC ? Durability.SYNC : Durability.NORMAL);
                        committed = working;
                        txn = null;
                        working = null;
                    }
                }
                case ABORT -> finishTxn(true);
                case OPEN_SNAPSHOT -> {
                    if (snapshots.size() < 6) {
                        Snapshot s = store.beginRead();
                        snapshots.add(s);
                        snapshotModels.add(deepCopy(committed));
                        expect(s.revision() == store.revision(), "snapshot opens at the newest revision");
                    }
                }
                case CLOSE_SNAPSHOT -> {
                    if (!snapshots.isEmpty()) {
                        int i = op.pick() % snapshots.size();
                        snapshots.remove(i).close();
                        snapshotModels.remove(i);
                    }
                }
                case CHECK_SNAPSHOT -> {
                    if (checkDiffs) {
                        checkDiffs(op, tree);
                    }
                    if (!snapshots.isEmpty()) {
                        int i = op.pick() % snapshots.size();
                        verifyAll(snapshots.get(i), snapshotModels.get(i), "snapshot " + i);
                    } else {
                        verifyPoint(op, name, tree);
                    }
                }
                case CURSOR_WALK -> cursorWalk(op, name, tree);
                case CREATE_TREE -> {
                    WriteTxn t = txn();
                    if (!working.containsKey(name)) {
                        t.createTree(name);
                        working.put(name, newMap());
                    } else {
                        expect(t.hasTree(tree), "tree exists");
                    }
                }
                case DROP_TREE -> {
                    WriteTxn t = txn();
                    boolean dropped = t.dropTree(tree);
                    expect(dropped == working.containsKey(name), "drop reports existed=" + dropped);
                    working.remove(name);
                }
                case REOPEN -> {
                    finishTxn(op.pick() % 2 == 0);
                    for (Snapshot s : snapshots) {
                        s.close();
                    }
                    snapshots.clear();
                    snapshotModels.clear();
                    store.close();
                    open();
                    verifyAll(committed, "after reopen");
                }
                case CHECK_STORE -> {
                    if (txn == null) {
                        store.check().throwIfDamaged();
                    }
                }
            }
        }

        /** The kind of buffer an operation passes its key (and value) in; null: {@code byte[]}. */
        private CallerBuffers bufferKind(Op op) {
            return CallerBuffers.drawn(op.pick() >>> 16);
        }

        /** Whether the operation reads or writes its tree inside the transaction. */
        private boolean usesTheTree(Op op) {
            return switch (op.kind()) {
                case PUT, DELETE, DELETE_RUN, DELETE_RANGE, BULK_LOAD, DROP_TREE, CURSOR_WALK, CHECK_SNAPSHOT -> true;
                default -> false;
            };
        }

        private void verifyPoint(Op op, String name, Tree tree) {
            Map<String, TreeMap<byte[], byte[]>> model = view();
            ReadView v = txn != null ? txn : null;
            if (v == null) {
                try (Snapshot s = store.beginRead()) {
                    verifyPoint(s, model, op, name, tree);
                }
            } else {
                verifyPoint(v, model, op, name, tree);
            }
        }

        private void verifyPoint(ReadView v, Map<String, TreeMap<byte[], byte[]>> model, Op op, String name,
                Tree tree) {
            TreeMap<byte[], byte[]> m = model.get(name);
            expect(v.hasTree(tree) == (m != null), "hasTree(" + name + ")");
            if (m != null) {
                byte[] k = key(op.key());
                CallerBuffers kind = bufferKind(op);
                byte[] got;
                boolean contains;
                if (kind == null) {
                    got = v.get(tree, k);
                    contains = v.contains(tree, k);
                } else {
                    UnsafeBuffer out = new UnsafeBuffer(0, 0);
                    got = v.get(tree, kind.wrap(k), out) ? CallerBuffers.bytes(out) : null;
                    contains = v.contains(tree, kind.wrap(k));
                }
                expect(Arrays.equals(got, m.get(k)), "get of key " + op.key() + " (" + kind + ")");
                expect(contains == m.containsKey(k), "contains of key " + op.key() + " (" + kind + ")");
            }
        }

        private void cursorWalk(Op op, String name, Tree tree) {
            ReadView v;
            Map<String, TreeMap<byte[], byte[]>> model;
            Snapshot temporary = null;
            if (txn != null && op.pick() % 3 != 0) {
                v = txn;
                model = working;
            } else if (!snapshots.isEmpty() && op.pick() % 3 == 1) {
                int i = op.pick() % snapshots.size();
                v = snapshots.get(i);
                model = snapshotModels.get(i);
            } else {
                temporary = store.beginRead();
                v = temporary;
                model = committed;
            }
            try {
                TreeMap<byte[], byte[]> m = model.get(name);
                if (m == null) {
                    return;
                }
                boolean forward = op.value() % 2 == 0;
                byte[] from = key(op.key());
                try (Cursor c = v.cursor(tree)) {
                    NavigableMap<byte[], byte[]> expected = forward ? m.tailMap(from, true) : m.headMap(from, true)
                            .descendingMap();
                    CallerBuffers kind = bufferKind(op);
                    boolean ok = kind == null ? (forward ? c.seek(from) : c.seekFloor(from))
                            : forward ? c.seek(kind.wrap(from)) : c.seekFloor(kind.wrap(from));
                    int limit = 1 + op.value() % 60;
                    int seen = 0;
                    for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
                        if (seen++ == limit) {
                            break;
                        }
                        expect(ok, "cursor ended early after " + (seen - 1));
                        expect(Arrays.equals(c.keyBytes(), e.getKey()), "cursor key " + (seen - 1));
                        expect(Arrays.equals(c.valueBytes(), e.getValue()), "cursor value " + (seen - 1));
                        // In a transaction, writes between steps must be seen by the cursor.
                        if (v == txn && seen % 7 == 3) {
                            byte[] k = e.getKey();
                            txn.put(tree, k, e.getValue());
                        }
                        ok = forward ? c.next() : c.prev();
                    }
                    if (seen <= limit) {
                        expect(!ok, "cursor runs past the model's end");
                    }
                }
            } finally {
                if (temporary != null) {
                    temporary.close();
                }
            }
        }

        private void checkAllSnapshots() {
            for (int i = 0; i < snapshots.size(); i++) {
                verifyAll(snapshots.get(i), snapshotModels.get(i), "snapshot " + i);
            }
        }

        /** Diffs two open snapshots, and one against the newest revision both ways, against the models. */
        private void checkDiffs(Op op, Tree tree) {
            try (Snapshot newest = store.beginRead()) {
                String where = "step " + step;
                if (snapshots.isEmpty()) {
                    DiffModel.check(newest, committed, newest, committed, where);
                    return;
                }
                int i = op.pick() % snapshots.size();
                int j = op.value() % snapshots.size();
                Snapshot a = snapshots.get(i);
                Map<String, TreeMap<byte[], byte[]>> ma = snapshotModels.get(i);
                DiffModel.check(a, ma, snapshots.get(j), snapshotModels.get(j), where);
                DiffModel.check(a, ma, newest, committed, where);
                DiffModel.check(newest, committed, a, ma, where);
                if (ma.containsKey(tree.name()) || committed.containsKey(tree.name())) {
                    DiffModel.checkTree(a, ma, newest, committed, tree, where);
                }
            }
        }

        private void verifyAll(Map<String, TreeMap<byte[], byte[]>> model, String where) {
            try (Snapshot s = store.beginRead()) {
                verifyAll(s, model, where);
            }
        }

        private void verifyAll(ReadView v, Map<String, TreeMap<byte[], byte[]>> model, String where) {
            for (String name : TREES) {
                Tree tree = handle(java.util.Arrays.asList(TREES).indexOf(name));
                TreeMap<byte[], byte[]> m = model.get(name);
                expect(v.hasTree(tree) == (m != null), where + ": hasTree(" + name + ")");
                if (m == null) {
                    continue;
                }
                expect(v.count(tree) == m.size(), where + ": count of " + name + " is " + v.count(tree) + ", model "
                        + m.size());
                try (Cursor c = v.cursor(tree)) {
                    boolean ok = c.first();
                    for (Map.Entry<byte[], byte[]> e : m.entrySet()) {
                        expect(ok, where + ": forward scan of " + name + " ended early");
                        expect(Arrays.equals(c.keyBytes(), e.getKey()), where + ": forward key of " + name);
                        expect(Arrays.equals(c.valueBytes(), e.getValue()), where + ": forward value of " + name);
                        ok = c.next();
                    }
                    expect(!ok, where + ": forward scan of " + name + " longer than the model");
                    ok = c.last();
                    for (byte[] k : m.descendingKeySet()) {
                        expect(ok, where + ": backward scan of " + name + " ended early");
                        expect(Arrays.equals(c.keyBytes(), k), where + ": backward key of " + name);
                        ok = c.prev();
                    }
                    expect(!ok, where + ": backward scan of " + name + " longer than the model");
                }
                for (int k = 0; k < KEYS; k += 37) {
                    byte[] key = key(k);
                    expect(Arrays.equals(v.get(tree, key), m.get(key)), where + ": get of key " + k);
                    expect(v.rank(tree, key, false) == m.headMap(key, false).size(), where + ": rank of key " + k);
                    expect(v.rank(tree, key, true) == m.headMap(key, true).size(), where + ": inclusive rank of " + k);
                    byte[] to = key((k + 101) % KEYS);
                    long count = Arrays.compareUnsigned(key, to) < 0 ? m.subMap(key, true, to, false).size() : 0;
                    expect(v.countRange(tree, key, to) == count, where + ": countRange from key " + k);
                }
                byte[][] keys = m.keySet().toArray(new byte[0][]);
                try (Cursor c = v.cursor(tree)) {
                    for (int i = 0; i < keys.length; i += 1 + keys.length / 17) {
                        expect(c.seekPosition(i), where + ": seekPosition " + i);
                        expect(Arrays.equals(c.keyBytes(), keys[i]), where + ": key at position " + i);
                        expect(c.position() == i, where + ": position " + i);
                        if (i + 5 < keys.length) {
                            expect(c.skip(5) && Arrays.equals(c.keyBytes(), keys[i + 5]), where + ": skip from " + i);
                        }
                    }
                    expect(!c.seekPosition(keys.length), where + ": seekPosition past the end");
                }
            }
        }

        private void expect(boolean condition, String what) {
            if (!condition) {
                throw new AssertionError("step " + step + ": " + what);
            }
        }
    }

    // ------------------------------------------------------------------ data

    /**
     * Keys of every allowed length, weighted to the edges (empty, one byte, just under the limit,
     * the limit), with shared prefixes and without.
     */
    byte[] key(int n) {
        int max = pageSize / 4;
        switch (n % 12) {
            case 0: {
                byte[] k = new byte[max - (n / 12) % 3];
                Arrays.fill(k, (byte) 0x7f);
                byte[] suffix = Integer.toString(n).getBytes();
                System.arraycopy(suffix, 0, k, k.length - suffix.length, suffix.length);
                return k;
            }
            case 1:
                return new byte[] {(byte) n, (byte) (n >> 8)};
            case 2:
                return ("common/prefix/that/is/shared/" + n).getBytes();
            case 3:
                // The empty key, and one-byte keys.
                return n == 3 ? new byte[0] : new byte[] {(byte) (n >> 2)};
            case 4: {
                // Any length up to the limit, from a seed: long shared runs and random tails.
                Random r = new Random(n);
                byte[] k = new byte[r.nextInt(max + 1)];
                int shared = r.nextInt(k.length + 1);
                for (int i = 0; i < k.length; i++) {
                    k[i] = i < shared ? (byte) 'a' : (byte) r.nextInt(256);
                }
                return k;
            }
            default:
                return String.format("k%05d", n).getBytes();
        }
    }

    /** The largest key of the longest length: every key but itself sorts below it. */
    byte[] maxKey() {
        byte[] k = new byte[pageSize / 4];
        Arrays.fill(k, (byte) 0xff);
        return k;
    }

    /** A key above {@code last} (null: any key), of a length drawn as for every key; null if none is left. */
    byte[] above(byte[] last, Random r) {
        int max = pageSize / 4;
        int length = switch (r.nextInt(6)) {
            case 0 -> max;
            case 1 -> max - 1;
            case 2 -> r.nextInt(max + 1);
            default -> 1 + r.nextInt(16);
        };
        return AscendingKeys.above(last, length, max, r);
    }

    /**
     * Values: empty, small, medium, a byte either side of the largest kept inline with a key of
     * {@code keyLength} bytes, and large enough for overflow pages.
     */
    byte[] value(int size, int seed, int keyLength) {
        int length;
        if (size < 80) {
            length = 0;
        } else if (size < 700) {
            length = size % 120;
        } else if (size < 900) {
            length = 200 + size;
        } else if (size < 950) {
            int inlineMax = new TreeLimits(pageSize).maxInlineEntry - Node.LEAF_ENTRY_HEADER - keyLength;
            length = Math.max(0, inlineMax - 1 + size % 3);
        } else {
            length = pageSize * (1 + size % 4) + size;
        }
        byte[] v = new byte[length];
        new Random(seed).nextBytes(v);
        return v;
    }

    static TreeMap<byte[], byte[]> newMap() {
        return new TreeMap<>(Arrays::compareUnsigned);
    }

    static Map<String, TreeMap<byte[], byte[]>> deepCopy(Map<String, TreeMap<byte[], byte[]>> m) {
        Map<String, TreeMap<byte[], byte[]>> copy = new HashMap<>();
        m.forEach((k, v) -> {
            TreeMap<byte[], byte[]> t = newMap();
            t.putAll(v);
            copy.put(k, t);
        });
        return copy;
    }

    static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Temporary files; nothing to do.
        }
    }
}
