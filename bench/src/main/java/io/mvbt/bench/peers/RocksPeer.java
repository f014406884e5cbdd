// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import io.mvbt.bench.Disk;
import io.mvbt.bench.KvStore;
import io.mvbt.bench.SyncMode;

/** RocksDB (rocksdbjni) with default options and the bytewise comparator; WAL on. */
public final class RocksPeer implements KvStore {
    static {
        RocksDB.loadLibrary();
    }

    private final Path dir;
    private final Options options;
    private final WriteOptions writeOptions;
    private final RocksDB db;

    public RocksPeer(Path dir, SyncMode mode) {
        this.dir = dir;
        this.options = new Options().setCreateIfMissing(true);
        this.writeOptions = new WriteOptions().setSync(mode == SyncMode.SYNC);
        try {
            this.db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot open RocksDB in " + dir, e);
        }
    }

    public static String settings(SyncMode mode) {
        return "WAL on, WriteOptions.sync=" + (mode == SyncMode.SYNC)
                + "; default options (bytewise comparator, Snappy, 64 MiB memtable, 32 MiB block cache)";
    }

    @Override
    public void put(byte[] k, byte[] v) {
        try {
            db.put(writeOptions, k, v);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Batch batch() {
        WriteBatch batch = new WriteBatch();
        return new Batch() {
            @Override
            public void put(byte[] k, byte[] v) {
                try {
                    batch.put(k, v);
                } catch (RocksDBException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void commit() {
                try (batch) {
                    db.write(writeOptions, batch);
                } catch (RocksDBException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    @Override
    public Reader reader() {
        Snapshot snapshot = db.getSnapshot();
        ReadOptions readOptions = new ReadOptions().setSnapshot(snapshot);
        return new Reader() {
            private byte[] valueBytes = new byte[128];

            @Override
            public boolean get(byte[] k, UnsafeBuffer out) {
                try {
                    int n = db.get(readOptions, k, valueBytes);
                    if (n == RocksDB.NOT_FOUND) {
                        return false;
                    }
                    if (n > valueBytes.length) {
                        valueBytes = new byte[n];
                        n = db.get(readOptions, k, valueBytes);
                    }
                    out.wrap(valueBytes, 0, n);
                    return true;
                } catch (RocksDBException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public Scan scan() {
                return new RocksScan(db.newIterator(readOptions));
            }

            @Override
            public void close() {
                readOptions.close();
                db.releaseSnapshot(snapshot);
            }
        };
    }

    private static final class RocksScan implements Scan {
        private final RocksIterator it;
        private final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
        private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);

        RocksScan(RocksIterator it) {
            this.it = it;
        }

        private boolean landed() {
            if (!it.isValid()) {
                return false;
            }
            key.wrap(it.key());
            value.wrap(it.value());
            return true;
        }

        @Override
        public boolean first() {
            it.seekToFirst();
            return landed();
        }

        @Override
        public boolean last() {
            it.seekToLast();
            return landed();
        }

        @Override
        public boolean seek(byte[] k) {
            it.seek(k);
            return landed();
        }

        @Override
        public boolean next() {
            it.next();
            return landed();
        }

        @Override
        public boolean prev() {
            it.prev();
            return landed();
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
            it.close();
        }
    }

    @Override
    public long deleteRange(byte[] from, byte[] to) {
        try {
            db.deleteRange(writeOptions, from, to);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
        return -1;
    }

    @Override
    public String deleteRangeMethod() {
        return "DeleteRange (one range tombstone)";
    }

    @Override
    public void sync() {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush);
            db.flushWal(true);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long bytesOnDisk() {
        return Disk.size(dir);
    }

    @Override
    public void close() {
        db.close();
        writeOptions.close();
        options.close();
    }
}
