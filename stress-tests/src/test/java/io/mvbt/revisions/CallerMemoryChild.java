// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.testkit.CallerBuffers;
import io.mvbt.testkit.PowerCutPageStore;

/**
 * The process of {@link CallerMemoryTest} (arguments: method, seconds, seed, directory for the
 * file store): for the given seconds, one thread per {@link Storage} calls one {@link Method} with
 * every key and value in a fresh direct buffer that the caller drops as soon as the call is made,
 * while a churn thread keeps collections (and with them the buffers' cleaners) running. Every
 * answer is checked against a {@link TreeMap}; the first wrong one is printed (operation, key,
 * expected, got, operation count, seed) and the process exits with 1. At the end each thread walks
 * its whole tree against the model and checks the store.
 */
public final class CallerMemoryChild {
    /** The calls that take caller memory as a {@code DirectBuffer}, one workload each. */
    public enum Method {
        PUT, DELETE, GET_IN_TXN, GET_IN_SNAPSHOT, CONTAINS_IN_TXN, CONTAINS_IN_SNAPSHOT, SEEK, SEEK_FLOOR, BULK_LOAD_ADD
    }

    /** Where a workload keeps its tree. */
    private enum Storage {
        FILE("file store"),
        MEMORY("in-memory store"),
        /**
         * Bulk loads only: a simulated disk with a redo log, whose power is cut after each load,
         * so that the tree is rebuilt from what the log recorded of each {@code add}. The load
         * itself reads the buffers while {@code add} still names them (for the log), so the
         * compiled code keeps them alive; the log's copy comes after their last use.
         */
        LOGGED_DISK("simulated disk with a redo log");

        final String description;

        Storage(String description) {
            this.description = description;
        }
    }

    private static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;
    private static final int PAGE_SIZE = StoreOptions.defaults().pageSize();
    /** The longest key the stores take ({@link Store#maxKeySize()}): a quarter of the page. */
    private static final int MAX_KEY = PAGE_SIZE / 4;
    /** Operations per write transaction: often enough that pages are really written. */
    private static final int OPS_PER_COMMIT = 50;
    /** Entries the tree is kept near: deep enough for long searches, small enough for a 64 MB heap. */
    private static final int TARGET_ENTRIES = 300;
    /**
     * The random choices of a power cut ({@link PowerCutPageStore#cut}, {@link PowerCutRedoStorage#cut})
     * that lose everything written since the last sync: the pages of a load go, the log that its
     * SYNC commit synced stays.
     */
    private static final Random ONLY_SYNCED_SURVIVES = new Random() {
        @Override
        public int nextInt(int bound) {
            return 0;
        }

        @Override
        public boolean nextBoolean() {
            return false;
        }
    };
    /** Where the churn thread's allocations go, so that no compiler can drop them. */
    private static volatile Object churned;

    private CallerMemoryChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        Method method = Method.valueOf(args[0]);
        long deadline = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        long seed = Long.parseLong(args[2]);
        Path dir = Path.of(args[3]);
        Thread churn = new Thread(CallerMemoryChild::churn, "churn");
        churn.setDaemon(true);
        churn.start();
        List<Storage> storages = method == Method.BULK_LOAD_ADD ? List.of(Storage.values())
                : List.of(Storage.FILE, Storage.MEMORY);
        List<Thread> workloads = new ArrayList<>();
        for (Storage storage : storages) {
            Workload workload = new Workload(method, storage, dir, seed + storage.ordinal(), deadline);
            workloads.add(new Thread(workload, storage.description));
        }
        workloads.forEach(Thread::start);
        for (Thread workload : workloads) {
            workload.join();
        }
    }

    /**
     * Heap arrays fill the young generation, so that collections start at any point of the
     * workloads' calls; a few small direct buffers take back memory that cleaners freed. Few: each
     * collection's cleaners run one after another, and the more there are, the later the
     * workload's buffer is freed.
     */
    private static void churn() {
        Random random = new Random();
        for (int i = 0; ; i++) {
            churned = new byte[random.nextInt(16 * 1024)];
            if (i % 16 == 0) {
                churned = ByteBuffer.allocateDirect(1 + random.nextInt(2048));
            }
        }
    }

    /** A new direct buffer holding {@code bytes}: callers pass it straight into a call and keep no reference. */
    private static UnsafeBuffer fresh(byte[] bytes) {
        return CallerBuffers.FRESH_DIRECT.wrap(bytes);
    }

    private static String hex(byte[] key) {
        return key == null ? "none" : "(" + key.length + " bytes) " + HexFormat.of().formatHex(key);
    }

    private static String describeValue(byte[] value) {
        if (value == null) {
            return "absent";
        }
        int shown = Math.min(value.length, 16);
        return value.length + " bytes " + HexFormat.of().formatHex(value, 0, shown)
                + (shown < value.length ? "..." : "");
    }

    /** One storage's run of one method, checked against a model. */
    private static final class Workload implements Runnable {
        private final Method method;
        private final Storage storage;
        private final Path dir;
        private final long seed;
        private final long deadline;
        private final Random random;
        /** Half the keys begin with a part of it: keys with long common prefixes make searches read more of the key. */
        private final byte[] stem = new byte[MAX_KEY];
        /** The out-buffer of {@code get}; it only ever wraps what the store hands back. */
        private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
        private final long started = System.nanoTime();
        private TreeMap<byte[], byte[]> model = new TreeMap<>(UNSIGNED);
        private Store store;
        private Tree tree;
        private long ops;
        private long rounds;

        Workload(Method method, Storage storage, Path dir, long seed, long deadline) {
            this.method = method;
            this.storage = storage;
            this.dir = dir;
            this.seed = seed;
            this.deadline = deadline;
            this.random = new Random(seed);
            random.nextBytes(stem);
        }

        @Override
        public void run() {
            try {
                if (storage == Storage.LOGGED_DISK) {
                    while (System.nanoTime() < deadline) {
                        rounds++;
                        loggedLoadRound();
                    }
                } else {
                    runOnStore();
                }
                System.out.printf("%s on the %s: %d operations in %d rounds, all answers right%n", method,
                        storage.description, ops, rounds);
            } catch (Throwable e) {
                fail("threw " + e, e);
            }
        }

        private void runOnStore() {
            try (Store opened = storage == Storage.FILE ? Store.open(dir.resolve("caller-memory.mvbt"))
                    : Store.inMemory(StoreOptions.defaults())) {
                store = opened;
                try (WriteTxn txn = store.beginWrite()) {
                    tree = txn.createTree("caller-memory");
                    while (method != Method.BULK_LOAD_ADD && model.size() < TARGET_ENTRIES) {
                        putWithByteArrays(txn, newKey(), newValue());
                    }
                    txn.commit();
                }
                while (System.nanoTime() < deadline) {
                    rounds++;
                    switch (method) {
                        case GET_IN_SNAPSHOT, CONTAINS_IN_SNAPSHOT -> snapshotRound();
                        case BULK_LOAD_ADD -> loadRound();
                        default -> writeRound();
                    }
                }
                walkWholeTree();
                store.check().throwIfDamaged();
            }
        }

        /** Operations of the method under test, among puts and deletes from byte arrays for the read methods. */
        private void writeRound() {
            try (WriteTxn txn = store.beginWrite()) {
                for (int i = 0; i < OPS_PER_COMMIT; i++) {
                    ops++;
                    switch (method) {
                        case PUT -> put(txn);
                        case DELETE -> delete(txn);
                        default -> {
                            if (random.nextInt(4) == 0) {
                                changeWithByteArrays(txn);
                            } else {
                                query(txn);
                            }
                        }
                    }
                }
                txn.commit();
            }
        }

        /** Changes committed from byte arrays, then the method's reads on a snapshot of the result. */
        private void snapshotRound() {
            try (WriteTxn txn = store.beginWrite()) {
                for (int i = 0; i < OPS_PER_COMMIT / 4; i++) {
                    changeWithByteArrays(txn);
                }
                txn.commit();
            }
            try (Snapshot snapshot = store.beginRead()) {
                for (int i = 0; i < OPS_PER_COMMIT; i++) {
                    ops++;
                    query(snapshot);
                }
            }
        }

        /** A new tree in place of the last, bulk-loaded from direct buffers. */
        private void loadRound() {
            TreeMap<byte[], byte[]> loaded = entriesToLoad();
            try (WriteTxn txn = store.beginWrite()) {
                txn.dropTree(tree);
                tree = txn.createTree("caller-memory-" + rounds);
                model = loaded;
                load(txn, tree, loaded);
                txn.commit();
            }
        }

        /**
         * A bulk load into a new store with a redo log, SYNC-committed (the log is synced, the pages
         * are not), then a power cut that loses the pages: the store opened on what is left must
         * replay the load from the log, which copied each key and value after the load's own use
         * of them.
         */
        private void loggedLoadRound() {
            TreeMap<byte[], byte[]> loaded = entriesToLoad();
            PowerCutPageStore disk = new PowerCutPageStore(PAGE_SIZE);
            PowerCutRedoStorage log = new PowerCutRedoStorage();
            StoreOptions options = StoreOptions.defaults().redoLog(true).checkpointInterval(Duration.ofHours(1));
            try (Store writer = Store.over(disk, options, true, log)) {
                try (WriteTxn txn = writer.beginWrite()) {
                    load(txn, txn.createTree("loaded"), loaded);
                    txn.commit(Durability.SYNC);
                }
                try (Store recovered = Store.over(PowerCutPageStore.of(disk.cut(ONLY_SYNCED_SURVIVES), PAGE_SIZE),
                        options, false, log.cut(ONLY_SYNCED_SURVIVES))) {
                    recovered.check().throwIfDamaged();
                    try (Snapshot snapshot = recovered.beginRead()) {
                        readBack(snapshot, recovered.tree("loaded"), loaded,
                                "bulkLoad.add, replayed from the redo log");
                    }
                }
            }
        }

        private TreeMap<byte[], byte[]> entriesToLoad() {
            TreeMap<byte[], byte[]> entries = new TreeMap<>(UNSIGNED);
            while (entries.size() < OPS_PER_COMMIT) {
                entries.put(newKey(), newValue());
            }
            return entries;
        }

        /** Loads {@code entries} in key order from direct buffers, then reads them back with byte arrays. */
        private void load(WriteTxn txn, Tree into, TreeMap<byte[], byte[]> entries) {
            try (BulkLoad load = txn.bulkLoad(into)) {
                for (Map.Entry<byte[], byte[]> entry : entries.entrySet()) {
                    ops++;
                    try {
                        load.add(fresh(entry.getKey()), fresh(entry.getValue()));
                    } catch (IllegalArgumentException e) {
                        wrong("bulkLoad.add", entry.getKey(), "accepted (keys ascend)", e.getMessage());
                    }
                }
            }
            readBack(txn, into, entries, "bulkLoad.add, read back by get(byte[])");
        }

        private void readBack(ReadView view, Tree loaded, TreeMap<byte[], byte[]> entries, String operation) {
            for (Map.Entry<byte[], byte[]> entry : entries.entrySet()) {
                byte[] stored = view.get(loaded, entry.getKey());
                if (!Arrays.equals(stored, entry.getValue())) {
                    wrong(operation, entry.getKey(), describeValue(entry.getValue()), describeValue(stored));
                }
            }
            if (view.count(loaded) != entries.size()) {
                wrong(operation + ", counted", null, entries.size() + " entries", view.count(loaded) + " entries");
            }
        }

        /** Puts new and present keys; each value is read back with a byte-array key. */
        private void put(WriteTxn txn) {
            byte[] key = random.nextBoolean() ? presentKey() : newKey();
            byte[] newValue = newValue();
            boolean expected = model.put(key, newValue) == null;
            boolean added = txn.put(tree, fresh(key), fresh(newValue));
            if (added != expected) {
                wrong("put", key, expected ? "true (new key)" : "false (key present)", added);
            }
            byte[] stored = txn.get(tree, key);
            if (!Arrays.equals(stored, newValue)) {
                wrong("put, read back by get(byte[])", key, describeValue(newValue), describeValue(stored));
            }
            if (model.size() > TARGET_ENTRIES) {
                deleteWithByteArray(txn, presentKey());
            }
        }

        /** Deletes present and absent keys; the tree is refilled from byte arrays. */
        private void delete(WriteTxn txn) {
            if (model.size() < TARGET_ENTRIES) {
                putWithByteArrays(txn, newKey(), newValue());
            }
            byte[] key = random.nextInt(4) == 0 ? newKey() : presentKey();
            boolean expected = model.remove(key) != null;
            boolean deleted = txn.delete(tree, fresh(key));
            if (deleted != expected) {
                wrong("delete", key, expected ? "true (key present)" : "false (key absent)", deleted);
            }
            if (txn.contains(tree, key)) {
                wrong("delete, read back by contains(byte[])", key, false, true);
            }
        }

        /** The read method under test, for a present or an absent key. */
        private void query(ReadView view) {
            byte[] key = random.nextBoolean() ? presentKey() : newKey();
            switch (method) {
                case GET_IN_TXN, GET_IN_SNAPSHOT -> {
                    byte[] got = null;
                    if (view.get(tree, fresh(key), value)) {
                        got = new byte[value.capacity()];
                        value.getBytes(0, got);
                    }
                    if (!Arrays.equals(got, model.get(key))) {
                        wrong("get", key, describeValue(model.get(key)), describeValue(got));
                    }
                }
                case CONTAINS_IN_TXN, CONTAINS_IN_SNAPSHOT -> {
                    boolean got = view.contains(tree, fresh(key));
                    if (got != model.containsKey(key)) {
                        wrong("contains", key, model.containsKey(key), got);
                    }
                }
                case SEEK, SEEK_FLOOR -> {
                    boolean ceiling = method == Method.SEEK;
                    try (Cursor cursor = view.cursor(tree)) {
                        boolean landed = ceiling ? cursor.seek(fresh(key)) : cursor.seekFloor(fresh(key));
                        byte[] got = landed ? cursor.keyBytes() : null;
                        byte[] expected = ceiling ? model.ceilingKey(key) : model.floorKey(key);
                        if (!Arrays.equals(got, expected)) {
                            wrong(ceiling ? "seek" : "seekFloor", key, "to land on " + hex(expected),
                                    "landed on " + hex(got));
                        }
                    }
                }
                default -> throw new IllegalStateException(method + " does not read");
            }
        }

        /** A put or a delete through the byte-array methods, keeping the tree near its size. */
        private void changeWithByteArrays(WriteTxn txn) {
            if (model.size() >= TARGET_ENTRIES && random.nextBoolean()) {
                deleteWithByteArray(txn, presentKey());
            } else {
                putWithByteArrays(txn, random.nextBoolean() ? presentKey() : newKey(), newValue());
            }
        }

        private void putWithByteArrays(WriteTxn txn, byte[] key, byte[] newValue) {
            boolean expected = model.put(key, newValue) == null;
            boolean added = txn.put(tree, key, newValue);
            if (added != expected) {
                wrong("put(byte[])", key, expected, added);
            }
        }

        private void deleteWithByteArray(WriteTxn txn, byte[] key) {
            boolean expected = model.remove(key) != null;
            boolean deleted = txn.delete(tree, key);
            if (deleted != expected) {
                wrong("delete(byte[])", key, expected, deleted);
            }
        }

        /** The committed tree, entry by entry in key order, against the model. */
        private void walkWholeTree() {
            try (Snapshot snapshot = store.beginRead(); Cursor cursor = snapshot.cursor(tree)) {
                var expected = model.entrySet().iterator();
                for (boolean on = cursor.first(); on; on = cursor.next()) {
                    byte[] key = cursor.keyBytes();
                    byte[] modelKey = expected.hasNext() ? expected.next().getKey() : null;
                    if (!Arrays.equals(key, modelKey)) {
                        wrong("the final walk", modelKey, "this key next", "key " + hex(key));
                    }
                    if (!Arrays.equals(cursor.valueBytes(), model.get(key))) {
                        wrong("the final walk", key, describeValue(model.get(key)), describeValue(cursor.valueBytes()));
                    }
                }
                if (expected.hasNext()) {
                    wrong("the final walk", expected.next().getKey(), "this key next", "the end of the tree");
                }
            }
        }

        /** A random key of 1 to {@code MAX_KEY} bytes, half of them beginning with part of the stem. */
        private byte[] newKey() {
            byte[] key = new byte[1 + random.nextInt(MAX_KEY)];
            random.nextBytes(key);
            if (random.nextBoolean()) {
                System.arraycopy(stem, 0, key, 0, random.nextInt(key.length));
            }
            return key;
        }

        /** A key the model holds, else a new one. */
        private byte[] presentKey() {
            byte[] key = model.ceilingKey(newKey());
            return key != null ? key : model.isEmpty() ? newKey() : model.firstKey();
        }

        /**
         * Small values stay in the leaf; larger than a third of a page go to overflow pages, whose
         * writing allocates and does I/O while a put or load still has the key to use.
         */
        private byte[] newValue() {
            int kind = random.nextInt(10);
            int length = kind < 5 ? 1 + random.nextInt(200)
                    : kind < 9 ? PAGE_SIZE / 3 + random.nextInt(2 * PAGE_SIZE)
                    : 4 * PAGE_SIZE + random.nextInt(12 * PAGE_SIZE);
            byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            return bytes;
        }

        private void wrong(String operation, byte[] key, Object expected, Object got) {
            fail("wrong answer from " + operation + " of key " + hex(key) + ": expected " + expected + ", got " + got,
                    null);
        }

        /** Prints the failure and ends the process at once, before another workload's failure can cut in. */
        private void fail(String what, Throwable cause) {
            synchronized (System.out) {
                System.out.printf("FAILED: %s on the %s, operation %d, %.1f s in, seed %d: %s%n", method,
                        storage.description, ops, (System.nanoTime() - started) / 1e9, seed, what);
                if (cause != null) {
                    cause.printStackTrace(System.out);
                }
                System.out.flush();
                Runtime.getRuntime().halt(1);
            }
        }
    }
}
