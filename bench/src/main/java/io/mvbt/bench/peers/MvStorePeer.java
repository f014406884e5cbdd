// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.h2.mvstore.Cursor;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.BasicDataType;
import org.h2.mvstore.type.ByteArrayDataType;

import io.mvbt.bench.Disk;
import io.mvbt.bench.KvStore;
import io.mvbt.bench.SyncMode;

/**
 * H2's MVStore: an {@link MVMap} of byte[] keys ordered as unsigned bytes, one
 * {@link MVStore#commit()} per transaction. Readers read the map's current root, which a commit
 * replaces atomically.
 */
public final class MvStorePeer implements KvStore {
    private final Path dir;
    private final SyncMode mode;
    private final MVStore store;
    private final MVMap<byte[], byte[]> map;

    public MvStorePeer(Path dir, SyncMode mode) {
        this.dir = dir;
        this.mode = mode;
        this.store = new MVStore.Builder().fileName(dir.resolve("h2.mv.db").toString()).open();
        this.map = store.openMap("kv", new MVMap.Builder<byte[], byte[]>().keyType(UnsignedBytes.INSTANCE)
                .valueType(ByteArrayDataType.INSTANCE));
    }

    public static String settings(SyncMode mode) {
        return mode == SyncMode.SYNC ? "commit() then sync() (fsync) per transaction; default builder"
                : "commit() per transaction (writes a chunk, no fsync); default builder (background writer, 16 MiB cache)";
    }

    /** byte[] keys compared as unsigned bytes. */
    static final class UnsignedBytes extends BasicDataType<byte[]> {
        static final UnsignedBytes INSTANCE = new UnsignedBytes();

        @Override
        public int getMemory(byte[] obj) {
            return 24 + obj.length;
        }

        @Override
        public void write(WriteBuffer buff, byte[] obj) {
            buff.putVarInt(obj.length).put(obj);
        }

        @Override
        public byte[] read(ByteBuffer buff) {
            byte[] b = new byte[DataUtils.readVarInt(buff)];
            buff.get(b);
            return b;
        }

        @Override
        public int compare(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b);
        }

        @Override
        public byte[][] createStorage(int size) {
            return new byte[size][];
        }
    }

    private void commit() {
        store.commit();
        if (mode == SyncMode.SYNC) {
            store.sync();
        }
    }

    @Override
    public void put(byte[] k, byte[] v) {
        map.put(k.clone(), v.clone());
        commit();
    }

    @Override
    public Batch batch() {
        return new Batch() {
            @Override
            public void put(byte[] k, byte[] v) {
                map.put(k.clone(), v.clone());
            }

            @Override
            public void commit() {
                MvStorePeer.this.commit();
            }
        };
    }

    @Override
    public Reader reader() {
        return new Reader() {
            @Override
            public boolean get(byte[] k, UnsafeBuffer out) {
                byte[] v = map.get(k);
                if (v == null) {
                    return false;
                }
                out.wrap(v);
                return true;
            }

            @Override
            public Scan scan() {
                return new MvScan(map);
            }

            @Override
            public void close() {
                // Nothing held: each read sees the map's newest root.
            }
        };
    }

    private static final class MvScan implements Scan {
        private final MVMap<byte[], byte[]> map;
        private final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
        private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
        private Cursor<byte[], byte[]> cursor;

        MvScan(MVMap<byte[], byte[]> map) {
            this.map = map;
        }

        private boolean advance() {
            if (cursor == null || !cursor.hasNext()) {
                return false;
            }
            cursor.next();
            key.wrap(cursor.getKey());
            value.wrap(cursor.getValue());
            return true;
        }

        @Override
        public boolean first() {
            cursor = map.cursor(null);
            return advance();
        }

        @Override
        public boolean last() {
            cursor = map.cursor(null, null, true);
            return advance();
        }

        @Override
        public boolean seek(byte[] k) {
            cursor = map.cursor(k);
            return advance();
        }

        @Override
        public boolean next() {
            return advance();
        }

        @Override
        public boolean prev() {
            return advance();
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
            cursor = null;
        }
    }

    @Override
    public long deleteRange(byte[] from, byte[] to) {
        List<byte[]> keys = new ArrayList<>();
        Cursor<byte[], byte[]> c = map.cursor(from);
        while (c.hasNext()) {
            byte[] k = c.next();
            if (Arrays.compareUnsigned(k, to) >= 0) {
                break;
            }
            keys.add(k);
        }
        for (byte[] k : keys) {
            map.remove(k);
        }
        commit();
        return keys.size();
    }

    @Override
    public String deleteRangeMethod() {
        return "cursor collects the keys, remove() each, one commit()";
    }

    @Override
    public void sync() {
        store.commit();
        store.sync();
    }

    @Override
    public long bytesOnDisk() {
        return Disk.size(dir);
    }

    @Override
    public void close() {
        store.close();
    }
}
