// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.nio.file.Path;
import java.util.function.LongSupplier;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.bench.Disk;
import io.mvbt.bench.KvStore;
import io.mvbt.bench.SyncMode;
import io.mvbt.revisions.Cursor;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/** mvbt itself, through the public API of {@code io.mvbt.revisions}, zero-copy where it has one. */
public final class MvbtPeer implements KvStore {
    static final String TREE = "bench";

    private final Store store;
    private final LongSupplier footprint;
    private final Runnable closed;
    private final Tree tree;
    private final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);

    /** Where {@link #shadowed} keeps the writer's pages: a memory file system. */
    static final Path SHADOWS = Path.of("/dev/shm");

    public MvbtPeer(Path dir, SyncMode mode) {
        this(Store.open(dir.resolve("mvbt.db"), options(mode)), () -> Disk.size(dir), () -> { });
    }

    /** mvbt whose writer keeps its pages in a shadow in {@link #SHADOWS} until their checkpoint. */
    static MvbtPeer shadowed(Path dir, SyncMode mode) {
        if (!java.nio.file.Files.isDirectory(SHADOWS)) {
            throw new IllegalStateException("mvbt-shadow needs " + SHADOWS + ", a memory file system");
        }
        return new MvbtPeer(Store.open(dir.resolve("mvbt.db"), options(mode).shadowDirectory(SHADOWS)),
                () -> Disk.size(dir), () -> { });
    }

    /** mvbt whose sole writer keeps a redo log ({@code StoreOptions.redoLog}). */
    static MvbtPeer logged(Path dir, SyncMode mode) {
        return new MvbtPeer(Store.open(dir.resolve("mvbt.db"), options(mode).redoLog(true)), () -> Disk.size(dir),
                () -> { });
    }

    /** A store opened elsewhere; {@code footprint} measures it, {@code closed} runs after it closes. */
    MvbtPeer(Store store, LongSupplier footprint, Runnable closed) {
        this.store = store;
        this.footprint = footprint;
        this.closed = closed;
        this.tree = store.tree(TREE);
        try (WriteTxn tx = store.beginWrite()) {
            tx.createTreeIfAbsent(TREE);
            tx.commit();
        }
    }

    /** 4 KiB pages and the engine's own checkpoint defaults; only the durability is chosen. */
    static StoreOptions options(SyncMode mode) {
        return StoreOptions.defaults().pageSize(4096)
                .durability(mode == SyncMode.SYNC ? Durability.SYNC : Durability.NORMAL);
    }

    public static String settings(SyncMode mode) {
        StoreOptions o = options(mode);
        return mode == SyncMode.SYNC ? "Durability.SYNC (fdatasync per commit), 4 KiB pages"
                : "Durability.NORMAL (no syscall per commit; checkpoint every " + o.checkpointInterval().toSeconds()
                        + " s or " + (o.checkpointBytes() >> 20) + " MiB written), 4 KiB pages";
    }

    @Override
    public void put(byte[] k, byte[] v) {
        key.wrap(k);
        value.wrap(v);
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(tree, key, value);
            tx.commit();
        }
    }

    @Override
    public Batch batch() {
        WriteTxn tx = store.beginWrite();
        return new Batch() {
            @Override
            public void put(byte[] k, byte[] v) {
                key.wrap(k);
                value.wrap(v);
                tx.put(tree, key, value);
            }

            @Override
            public void commit() {
                try (tx) {
                    tx.commit();
                }
            }
        };
    }

    @Override
    public Reader reader() {
        Snapshot snapshot = store.beginRead();
        UnsafeBuffer readKey = new UnsafeBuffer(new byte[0]);
        return new Reader() {
            @Override
            public boolean get(byte[] k, UnsafeBuffer out) {
                readKey.wrap(k);
                return snapshot.get(tree, readKey, out);
            }

            @Override
            public Scan scan() {
                return new MvbtScan(snapshot.cursor(tree));
            }

            @Override
            public void close() {
                snapshot.close();
            }
        };
    }

    private static final class MvbtScan implements Scan {
        private final Cursor cursor;

        MvbtScan(Cursor cursor) {
            this.cursor = cursor;
        }

        @Override
        public boolean first() {
            return cursor.first();
        }

        @Override
        public boolean last() {
            return cursor.last();
        }

        @Override
        public boolean seek(byte[] k) {
            return cursor.seek(k);
        }

        @Override
        public boolean next() {
            return cursor.next();
        }

        @Override
        public boolean prev() {
            return cursor.prev();
        }

        @Override
        public DirectBuffer key() {
            return cursor.key();
        }

        @Override
        public DirectBuffer value() {
            return cursor.value();
        }

        @Override
        public void close() {
            cursor.close();
        }
    }

    @Override
    public long deleteRange(byte[] from, byte[] to) {
        try (WriteTxn tx = store.beginWrite()) {
            long deleted = tx.deleteRange(tree, from, to);
            tx.commit();
            return deleted;
        }
    }

    @Override
    public String deleteRangeMethod() {
        return "WriteTxn.deleteRange (O(depth): cuts whole subtrees off, frees their pages over later commits)";
    }

    @Override
    public void sync() {
        store.sync();
    }

    @Override
    public long bytesOnDisk() {
        return footprint.getAsLong();
    }

    @Override
    public void close() {
        try {
            store.close();
        } finally {
            closed.run();
        }
    }
}
