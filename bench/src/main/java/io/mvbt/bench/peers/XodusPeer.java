// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.bench.Disk;
import io.mvbt.bench.KvStore;
import io.mvbt.bench.SyncMode;
import jetbrains.exodus.ArrayByteIterable;
import jetbrains.exodus.ByteIterable;
import jetbrains.exodus.env.Cursor;
import jetbrains.exodus.env.Environment;
import jetbrains.exodus.env.EnvironmentConfig;
import jetbrains.exodus.env.EnvironmentImpl;
import jetbrains.exodus.env.Environments;
import jetbrains.exodus.env.Store;
import jetbrains.exodus.env.StoreConfig;
import jetbrains.exodus.env.Transaction;

/** JetBrains Xodus environment: one store without duplicates (ByteIterable keys order as unsigned bytes). */
public final class XodusPeer implements KvStore {
    private static final StoreConfig STORE_CONFIG = StoreConfig.WITHOUT_DUPLICATES_WITH_PREFIXING;

    private final Path dir;
    private final Environment env;
    private final Store store;

    public XodusPeer(Path dir, SyncMode mode) {
        this.dir = dir;
        EnvironmentConfig config = new EnvironmentConfig().setLogDurableWrite(mode == SyncMode.SYNC);
        this.env = Environments.newInstance(dir.toFile(), config);
        this.store = env.computeInTransaction(txn -> env.openStore("kv", STORE_CONFIG, txn));
    }

    public static String settings(SyncMode mode) {
        return "logDurableWrite=" + (mode == SyncMode.SYNC)
                + ", store WITHOUT_DUPLICATES_WITH_PREFIXING (Patricia tree), default config";
    }

    private static void commit(Transaction txn) {
        if (!txn.commit()) {
            throw new IllegalStateException("Xodus refused the commit of the only writer");
        }
    }

    @Override
    public void put(byte[] k, byte[] v) {
        Transaction txn = env.beginTransaction();
        try {
            store.put(txn, new ArrayByteIterable(k.clone()), new ArrayByteIterable(v.clone()));
            commit(txn);
        } finally {
            if (!txn.isFinished()) {
                txn.abort();
            }
        }
    }

    @Override
    public Batch batch() {
        Transaction txn = env.beginTransaction();
        return new Batch() {
            @Override
            public void put(byte[] k, byte[] v) {
                store.put(txn, new ArrayByteIterable(k.clone()), new ArrayByteIterable(v.clone()));
            }

            @Override
            public void commit() {
                XodusPeer.commit(txn);
            }
        };
    }

    private static void wrap(UnsafeBuffer view, ByteIterable bytes) {
        view.wrap(bytes.getBytesUnsafe(), 0, bytes.getLength());
    }

    @Override
    public Reader reader() {
        Transaction txn = env.beginReadonlyTransaction();
        return new Reader() {
            @Override
            public boolean get(byte[] k, UnsafeBuffer out) {
                ByteIterable v = store.get(txn, new ArrayByteIterable(k));
                if (v == null) {
                    return false;
                }
                wrap(out, v);
                return true;
            }

            @Override
            public Scan scan() {
                return new XodusScan(store.openCursor(txn));
            }

            @Override
            public void close() {
                txn.abort();
            }
        };
    }

    private static final class XodusScan implements Scan {
        private final Cursor cursor;
        private final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
        private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);

        XodusScan(Cursor cursor) {
            this.cursor = cursor;
        }

        private boolean landed(boolean on) {
            if (on) {
                wrap(key, cursor.getKey());
                wrap(value, cursor.getValue());
            }
            return on;
        }

        @Override
        public boolean first() {
            // A fresh cursor's first getNext() lands on the first entry; seek to the empty key instead
            // so that first() also works on a cursor that has moved.
            return landed(cursor.getSearchKeyRange(ByteIterable.EMPTY) != null);
        }

        @Override
        public boolean last() {
            return landed(cursor.getLast());
        }

        @Override
        public boolean seek(byte[] k) {
            return landed(cursor.getSearchKeyRange(new ArrayByteIterable(k)) != null);
        }

        @Override
        public boolean next() {
            return landed(cursor.getNext());
        }

        @Override
        public boolean prev() {
            return landed(cursor.getPrev());
        }

        @Override
        public DirectBuffer key() {
            return key;
        }

        @Override
        public DirectBuffer value() {
            return value;
        }

        @Override
        public void close() {
            cursor.close();
        }
    }

    @Override
    public long deleteRange(byte[] from, byte[] to) {
        Transaction txn = env.beginTransaction();
        long deleted = 0;
        try (Cursor c = store.openCursor(txn)) {
            ByteIterable end = new ArrayByteIterable(to);
            boolean on = c.getSearchKeyRange(new ArrayByteIterable(from)) != null;
            while (on && c.getKey().compareTo(end) < 0) {
                c.deleteCurrent();
                deleted++;
                on = c.getNext();
            }
            commit(txn);
        } finally {
            if (!txn.isFinished()) {
                txn.abort();
            }
        }
        return deleted;
    }

    @Override
    public String deleteRangeMethod() {
        return "cursor loop of deleteCurrent() in one transaction";
    }

    @Override
    public void sync() {
        ((EnvironmentImpl) env).flushAndSync();
    }

    @Override
    public long bytesOnDisk() {
        return Disk.size(dir);
    }

    @Override
    public void close() {
        env.close();
    }
}
