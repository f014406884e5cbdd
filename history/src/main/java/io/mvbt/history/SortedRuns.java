// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * An external merge sort of history records by hash, then by arrival order (so the first of
 * duplicate hashes comes first): records collect in memory, a full batch is sorted and written to
 * a temporary file as a run, and {@link #merge} merges the runs (and what is still in memory).
 * Memory holds at most {@code runEntries} records plus one buffered record per run.
 */
final class SortedRuns implements AutoCloseable {
    /** One entry to load: hash as two unsigned halves, its sequence number, its encoded value. */
    record Rec(long hi, long lo, long seq, byte[] value) {
        byte[] key() {
            byte[] k = new byte[16];
            for (int i = 0; i < 8; i++) {
                k[i] = (byte) (hi >>> (56 - 8 * i));
                k[8 + i] = (byte) (lo >>> (56 - 8 * i));
            }
            return k;
        }

        boolean sameHash(Rec o) {
            return o != null && hi == o.hi && lo == o.lo;
        }
    }

    static final Comparator<Rec> ORDER = (a, b) -> {
        int c = Long.compareUnsigned(a.hi, b.hi);
        if (c == 0) {
            c = Long.compareUnsigned(a.lo, b.lo);
        }
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    };

    /** Consumer of the merged records. */
    interface Sink {
        void accept(Rec rec);
    }

    private final int runEntries;
    private final Path tempDir;
    private final List<Rec> memory = new ArrayList<>();
    private final List<Path> runs = new ArrayList<>();

    SortedRuns(int runEntries, Path tempDir) {
        this.runEntries = runEntries;
        this.tempDir = tempDir;
    }

    static Rec rec(byte[] hash, long seq, byte[] value) {
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = hi << 8 | (hash[i] & 0xFF);
            lo = lo << 8 | (hash[8 + i] & 0xFF);
        }
        return new Rec(hi, lo, seq, value);
    }

    void add(Rec rec) {
        memory.add(rec);
        if (memory.size() >= runEntries) {
            spill();
        }
    }

    /** Runs written to temporary files so far. */
    int runs() {
        return runs.size();
    }

    private void spill() {
        memory.sort(ORDER);
        try {
            Path file = Files.createTempFile(tempDir, "mvbt-history-run", ".tmp");
            runs.add(file);
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16))) {
                for (Rec r : memory) {
                    out.writeLong(r.hi);
                    out.writeLong(r.lo);
                    out.writeLong(r.seq);
                    out.writeByte(r.value.length);
                    out.write(r.value);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a sorted run under " + tempDir, e);
        }
        memory.clear();
    }

    /** Passes every record to {@code sink} in order. */
    void merge(Sink sink) {
        memory.sort(ORDER);
        if (runs.isEmpty()) {
            memory.forEach(sink::accept);
            return;
        }
        List<RunReader> readers = new ArrayList<>();
        try {
            PriorityQueue<RunReader> queue = new PriorityQueue<>((a, b) -> ORDER.compare(a.head, b.head));
            for (Path run : runs) {
                RunReader r = new RunReader(run);
                readers.add(r);
                if (r.advance()) {
                    queue.add(r);
                }
            }
            RunReader inMemory = new RunReader(memory);
            if (inMemory.advance()) {
                queue.add(inMemory);
            }
            while (!queue.isEmpty()) {
                RunReader r = queue.poll();
                sink.accept(r.head);
                if (r.advance()) {
                    queue.add(r);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read a sorted run under " + tempDir, e);
        } finally {
            for (RunReader r : readers) {
                r.close();
            }
        }
    }

    /** Deletes the temporary files. */
    @Override
    public void close() {
        for (Path run : runs) {
            try {
                Files.deleteIfExists(run);
            } catch (IOException e) {
                // A leftover temporary file is harmless; the import's outcome does not depend on it.
            }
        }
        runs.clear();
        memory.clear();
    }

    /** The next record of one run, from a file or from memory. */
    private static final class RunReader {
        private final DataInputStream in;
        private final List<Rec> list;
        private int index;
        Rec head;

        RunReader(Path file) throws IOException {
            this.in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
            this.list = null;
        }

        RunReader(List<Rec> list) {
            this.in = null;
            this.list = list;
        }

        boolean advance() throws IOException {
            if (list != null) {
                head = index < list.size() ? list.get(index++) : null;
                return head != null;
            }
            long hi;
            try {
                hi = in.readLong();
            } catch (EOFException end) {
                head = null;
                return false;
            }
            long lo = in.readLong();
            long seq = in.readLong();
            byte[] value = new byte[in.readUnsignedByte()];
            in.readFully(value);
            head = new Rec(hi, lo, seq, value);
            return true;
        }

        void close() {
            if (in != null) {
                try {
                    in.close();
                } catch (IOException e) {
                    // Only reading: nothing to lose.
                }
            }
        }
    }
}
