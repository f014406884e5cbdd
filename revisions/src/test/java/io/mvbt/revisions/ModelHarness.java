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

/**
 * Our own model-based random testing, as H2's TestRandomMapOps and bbolt do: a seed generates a
 * list of operations; the list runs against a store and against a model (a TreeMap per tree, and a
 * copy of the model for every open snapshot); any difference fails with the seed. A failing list is
 * shrunk by dropping operations while it still fails, and the minimal list is printed.
 *
 * <p>Operations carry their random choices, and their meaning depends only on the state when they
 * run (a snapshot is picked by number modulo the open ones), so any sub-list is runnable.
 */
final class ModelHarness {
    enum Kind {
        PUT, DELETE, DELETE_RUN, DELETE_RANGE, BULK_LOAD, COMMIT_SYNC, COMMIT_NORMAL, ABORT, OPEN_SNAPSHOT,
        CLOSE_SNAPSHOT, CHECK_SNAPSHOT, CURSOR_WALK, CREATE_TREE, DROP_TREE, REOPEN, CHECK_STORE
    }

    /** One operation with its random choices. */
    record Op(Kind kind, int tree, int key, int value, int pick) {
        @Override
        public String toString() {
            return kind + "(tree=" + tree + ", key=" + key + ", value=" + value + ", pick=" + pick + ")";
        }
    }

    static final String[] TREES = {"a", "b", "a-tree-with-a-rather-long-name-" + "x".repeat(100)};
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

    private final Storage storage;
    private final boolean file;
    private final int pageSize;

    ModelHarness(boolean file, int pageSize) {
        this(file ? FILE : MEMORY, pageSize);
    }

    ModelHarness(Storage storage, int pageSize) {
        this.storage = storage;
        this.file = storage.durable();
        this.pageSize = pageSize;
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
            } else if (x < 975) {
                kind = Kind.BULK_LOAD;
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

    /** Drops chunks of operations, halving the chunk size, while the list still fails. */
    List<Op> shrink(List<Op> ops) {
        List<Op> current = new ArrayList<>(ops);
        for (int chunk = Math.max(1, current.size() / 2); chunk >= 1; chunk /= 2) {
            boolean removed = true;
            while (removed) {
                removed = false;
                for (int start = 0; start < current.size(); start += chunk) {
                    List<Op> candidate = new ArrayList<>(current.subList(0, start));
                    candidate.addAll(current.subList(Math.min(current.size(), start + chunk), current.size()));
                    if (failure(candidate) != null) {
                        current = candidate;
                        removed = true;
                        break;
                    }
                }
            }
        }
        return current;
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
            Tree tree = store.tree(name);
            switch (op.kind()) {
                case PUT -> {
                    WriteTxn t = txn();
                    TreeMap<byte[], byte[]> m = working.get(name);
                    if (m == null) {
                        return;
                    }
                    byte[] k = key(op.key());
                    byte[] v = value(op.value(), op.pick());
                    boolean inserted = t.put(tree, k, v);
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
                    boolean deleted = t.delete(tree, k);
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
                    int shape = op.pick() % 7;
                    if (shape == 0) {
                        to = from;
                    } else if (shape == 1 && m.higherKey(from) != null) {
                        to = m.higherKey(from);
                    } else if (shape == 2) {
                        from = new byte[0];
                        to = new byte[] {(byte) 0xff, (byte) 0xff};
                    } else if (shape == 3) {
                        // A prefix of the tree: its first children go, the rest stays.
                        to = from;
                        from = new byte[0];
                    } else if (shape == 4) {
                        to = new byte[] {(byte) 0xff, (byte) 0xff};
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
                case BULK_LOAD -> {
                    WriteTxn t = txn();
                    TreeMap<byte[], byte[]> m = working.get(name);
                    if (m == null) {
                        return;
                    }
                    // Appends ascending keys past the tree's last key ("z..." sorts after every key used).
                    int n = 1 + op.value() % 400;
                    String prefix = "z" + (m.isEmpty() ? "" : new String(m.lastKey()).replace('z', 'y'));
                    byte[] last = m.isEmpty() ? null : m.lastKey();
                    try (BulkLoad load = t.bulkLoad(tree, op.pick() % 2 == 0 ? 1.0 : 0.7)) {
                        for (int i = 0; i < n; i++) {
                            byte[] k = (prefix + String.format("%06d", i)).getBytes();
                            if (last != null && java.util.Arrays.compareUnsigned(k, last) <= 0) {
                                continue;
                            }
                            if (k.length > pageSize / 4) {
                                break;
                            }
                            byte[] v = value((op.value() + 7 * i) % 1000, op.pick() + i);
                            load.add(k, v);
                            m.put(k, v);
                        }
                    }
                }
                case COMMIT_SYNC, COMMIT_NORMAL -> {
                    if (txn != null) {
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
                byte[] got = v.get(tree, k);
                expect(Arrays.equals(got, m.get(k)), "get of key " + op.key());
                expect(v.contains(tree, k) == m.containsKey(k), "contains of key " + op.key());
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
                    boolean ok = forward ? c.seek(from) : c.seekFloor(from);
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

        private void verifyAll(Map<String, TreeMap<byte[], byte[]>> model, String where) {
            try (Snapshot s = store.beginRead()) {
                verifyAll(s, model, where);
            }
        }

        private void verifyAll(ReadView v, Map<String, TreeMap<byte[], byte[]>> model, String where) {
            for (String name : TREES) {
                Tree tree = store.tree(name);
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

    /** Keys of several shapes: short, shared prefixes, and some at the maximum length. */
    byte[] key(int n) {
        switch (n % 8) {
            case 0:
                byte[] k = new byte[pageSize / 4];
                Arrays.fill(k, (byte) 0x7f);
                byte[] suffix = Integer.toString(n).getBytes();
                System.arraycopy(suffix, 0, k, k.length - suffix.length, suffix.length);
                return k;
            case 1:
                return new byte[] {(byte) n, (byte) (n >> 8)};
            case 2:
                return ("common/prefix/that/is/shared/" + n).getBytes();
            default:
                return String.format("k%05d", n).getBytes();
        }
    }

    /** Values: empty, small, medium, and large enough for overflow pages. */
    byte[] value(int size, int seed) {
        int length;
        if (size < 80) {
            length = 0;
        } else if (size < 700) {
            length = size % 120;
        } else if (size < 950) {
            length = 200 + size;
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
