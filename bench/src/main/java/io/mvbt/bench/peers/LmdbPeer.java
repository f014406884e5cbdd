// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.DirectBufferProxy;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.GetOp;
import org.lmdbjava.Txn;

import io.mvbt.bench.Disk;
import io.mvbt.bench.KvStore;
import io.mvbt.bench.SyncMode;

/** LMDB through lmdbjava with Agrona buffers (zero-copy reads); default byte-wise key order. */
public final class LmdbPeer implements KvStore {
    static {
        // lmdbjava's argument checks cost time on every call; production users turn them off.
        System.setProperty(Env.DISABLE_CHECKS_PROP, "true");
    }

    /** Virtual address space reserved; the file grows only as pages are written. */
    private static final long MAP_SIZE = 256L << 30;

    private final Path dir;
    private final Env<DirectBuffer> env;
    private final Dbi<DirectBuffer> dbi;
    private final Buffers writeBuffers = new Buffers();

    /** LMDB takes keys and values from native memory: one pair of direct buffers per thread. */
    private static final class Buffers {
        private UnsafeBuffer keyMem = direct(511);
        private UnsafeBuffer valueMem = direct(128);
        final UnsafeBuffer key = new UnsafeBuffer(0, 0);
        final UnsafeBuffer value = new UnsafeBuffer(0, 0);

        private static UnsafeBuffer direct(int size) {
            return new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        }

        DirectBuffer key(byte[] k) {
            if (keyMem.capacity() < k.length) {
                keyMem = direct(k.length);
            }
            keyMem.putBytes(0, k);
            key.wrap(keyMem, 0, k.length);
            return key;
        }

        DirectBuffer value(byte[] v) {
            if (valueMem.capacity() < v.length) {
                valueMem = direct(Math.max(v.length, valueMem.capacity() * 2));
            }
            valueMem.putBytes(0, v);
            value.wrap(valueMem, 0, v.length);
            return value;
        }
    }

    public LmdbPeer(Path dir, SyncMode mode) {
        this.dir = dir;
        EnvFlags[] flags = mode == SyncMode.SYNC ? new EnvFlags[0]
                : new EnvFlags[] {EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOMETASYNC};
        this.env = Env.create(DirectBufferProxy.PROXY_DB).setMapSize(MAP_SIZE).setMaxDbs(1).setMaxReaders(256)
                .open(dir.toFile(), flags);
        this.dbi = env.openDbi("bench", DbiFlags.MDB_CREATE);
    }

    public static String settings(SyncMode mode) {
        return mode == SyncMode.SYNC ? "default flags (data and meta fdatasync per commit)"
                : "MDB_NOSYNC | MDB_NOMETASYNC (no fsync on commit), lmdbjava checks off";
    }

    @Override
    public void put(byte[] k, byte[] v) {
        try (Txn<DirectBuffer> txn = env.txnWrite()) {
            dbi.put(txn, writeBuffers.key(k), writeBuffers.value(v));
            txn.commit();
        }
    }

    @Override
    public Batch batch() {
        Txn<DirectBuffer> txn = env.txnWrite();
        return new Batch() {
            @Override
            public void put(byte[] k, byte[] v) {
                dbi.put(txn, writeBuffers.key(k), writeBuffers.value(v));
            }

            @Override
            public void commit() {
                try (txn) {
                    txn.commit();
                }
            }
        };
    }

    @Override
    public Reader reader() {
        Txn<DirectBuffer> txn = env.txnRead();
        Buffers buffers = new Buffers();
        return new Reader() {
            @Override
            public boolean get(byte[] k, UnsafeBuffer out) {
                DirectBuffer v = dbi.get(txn, buffers.key(k));
                if (v == null) {
                    return false;
                }
                out.wrap(v, 0, v.capacity());
                return true;
            }

            @Override
            public Scan scan() {
                org.lmdbjava.Cursor<DirectBuffer> c = dbi.openCursor(txn);
                return new Scan() {
                    @Override
                    public boolean first() {
                        return c.first();
                    }

                    @Override
                    public boolean last() {
                        return c.last();
                    }

                    @Override
                    public boolean seek(byte[] k) {
                        return c.get(buffers.key(k), GetOp.MDB_SET_RANGE);
                    }

                    @Override
                    public boolean next() {
                        return c.next();
                    }

                    @Override
                    public boolean prev() {
                        return c.prev();
                    }

                    @Override
                    public DirectBuffer key() {
                        return c.key();
                    }

                    @Override
                    public DirectBuffer value() {
                        return c.val();
                    }

                    @Override
                    public void close() {
                        c.close();
                    }
                };
            }

            @Override
            public void close() {
                txn.close();
            }
        };
    }

    @Override
    public long deleteRange(byte[] from, byte[] to) {
        UnsafeBuffer end = new UnsafeBuffer(to);
        long deleted = 0;
        try (Txn<DirectBuffer> txn = env.txnWrite(); org.lmdbjava.Cursor<DirectBuffer> c = dbi.openCursor(txn)) {
            boolean on = c.get(writeBuffers.key(from), GetOp.MDB_SET_RANGE);
            while (on && Bytes.compare(c.key(), end) < 0) {
                c.delete();
                deleted++;
                // After a delete LMDB's cursor already stands on the following entry; MDB_NEXT returns it.
                on = c.next();
            }
            txn.commit();
        }
        return deleted;
    }

    @Override
    public String deleteRangeMethod() {
        return "cursor loop of mdb_cursor_del in one write txn";
    }

    @Override
    public void sync() {
        env.sync(true);
    }

    @Override
    public long bytesOnDisk() {
        return Disk.size(dir);
    }

    @Override
    public void close() {
        dbi.close();
        env.close();
    }
}
