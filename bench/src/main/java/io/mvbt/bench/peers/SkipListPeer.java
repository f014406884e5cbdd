// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.bench.KvStore;

/**
 * {@link ConcurrentSkipListMap} on the heap: the in-memory bound. Not transactional: a reader
 * sees each write as it happens, a batch is a loop, nothing is durable.
 */
public final class SkipListPeer implements KvStore {
    private final ConcurrentSkipListMap<byte[], byte[]> map = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);

    public static String settings() {
        return "in-memory, on-heap, no transactions, nothing durable";
    }

    @Override
    public void put(byte[] k, byte[] v) {
        map.put(k.clone(), v.clone());
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
                // Every put is visible at once.
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
                return new SkipScan();
            }

            @Override
            public void close() {
            }
        };
    }

    private final class SkipScan implements Scan {
        private final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
        private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
        private Iterator<Map.Entry<byte[], byte[]>> it;

        private boolean start(NavigableMap<byte[], byte[]> view) {
            it = view.entrySet().iterator();
            return advance();
        }

        private boolean advance() {
            if (it == null || !it.hasNext()) {
                return false;
            }
            Map.Entry<byte[], byte[]> e = it.next();
            key.wrap(e.getKey());
            value.wrap(e.getValue());
            return true;
        }

        @Override
        public boolean first() {
            return start(map);
        }

        @Override
        public boolean last() {
            return start(map.descendingMap());
        }

        @Override
        public boolean seek(byte[] k) {
            return start(map.tailMap(k, true));
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
            it = null;
        }
    }

    @Override
    public long deleteRange(byte[] from, byte[] to) {
        NavigableMap<byte[], byte[]> range = map.subMap(from, true, to, false);
        long n = range.size();
        range.clear();
        return n;
    }

    @Override
    public String deleteRangeMethod() {
        return "subMap(from, to).clear()";
    }

    @Override
    public void sync() {
    }

    @Override
    public long bytesOnDisk() {
        return -1;
    }

    @Override
    public void close() {
        map.clear();
    }
}
