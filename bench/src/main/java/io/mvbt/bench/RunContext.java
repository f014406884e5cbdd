// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

import io.mvbt.bench.peers.Peer;
import org.HdrHistogram.Histogram;

/**
 * What a suite runs with inside a child JVM: the one store under test, the sizes, where files go
 * and where measurements are reported. A warm-up context reports nothing.
 */
public final class RunContext {
    final Peer peer;
    final SyncMode mode;
    final Path workDir;
    final long entries;
    final long reads;
    final int threads;
    final double seconds;
    final Workload workload;
    private final PrintStream out;
    private long heapBaseline;

    RunContext(Peer peer, SyncMode mode, Path workDir, long entries, long reads, int threads, double seconds,
            Workload workload, PrintStream out) {
        this.peer = peer;
        this.mode = mode;
        this.workDir = workDir;
        this.entries = entries;
        this.reads = reads;
        this.threads = threads;
        this.seconds = seconds;
        this.workload = workload;
        this.out = out;
    }

    boolean measuring() {
        return out != null;
    }

    /** Opens a fresh store under {@code name} with the run's durability. */
    KvStore open(String name) {
        return open(name, mode);
    }

    KvStore open(String name, SyncMode syncMode) {
        Path dir = workDir.resolve(name);
        Disk.delete(dir);
        try {
            Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        heapBaseline = heapUsed();
        return peer.open(dir, syncMode);
    }

    /** Closes a store and removes its files. */
    void discard(KvStore store, String name) {
        store.close();
        Disk.delete(workDir.resolve(name));
    }

    /**
     * Closes the store, reports its size on disk once closed as the footprint "{@code after},
     * closed" (what a store gives back at close, or builds then, counts), and deletes it.
     */
    void discardClosed(KvStore store, String name, String after, long liveEntries) {
        store.close();
        if (out != null) {
            long disk = Disk.size(workDir.resolve(name));
            out.println(new Protocol.Footprint(after + ", closed", liveEntries, disk, -1).line());
            progress(String.format("footprint after %s, closed: %.1f bytes/entry on disk", after,
                    (double) disk / liveEntries));
        }
        Disk.delete(workDir.resolve(name));
    }

    void progress(String text) {
        if (out != null) {
            System.err.println("  [" + peer.id() + "] " + text);
        }
    }

    void note(String text) {
        if (out != null) {
            out.println(Protocol.note(text));
        }
    }

    void report(Protocol.Timing t) {
        if (out != null) {
            out.println(t.line());
            progress(String.format("%-20s %,12.0f ops/s %10.3f us/op", t.phase(), t.opsPerSecond(), t.microsPerOp()));
        }
    }

    /** Runs {@code body}, which returns how many operations it did, and reports its rate and cost. */
    long phase(String name, LongSupplier body) {
        ProcessCounters before = ProcessCounters.now();
        long start = System.nanoTime();
        long ops = body.getAsLong();
        long nanos = System.nanoTime() - start;
        report(new Protocol.Timing(name, ops, nanos));
        cost(name, before);
        return ops;
    }

    /** Reports what the process paid in faults and garbage collection since {@code before}. */
    void cost(String phase, ProcessCounters before) {
        if (out == null) {
            return;
        }
        ProcessCounters c = ProcessCounters.now().since(before);
        out.println(new Protocol.Cost(phase, c.minorFaults(), c.majorFaults(), c.gcCount(), c.gcMillis()).line());
    }

    /** Runs {@code threads} copies of a task and reports their combined rate over the wall time. */
    long parallelPhase(String name, int count, IntFunction<LongSupplier> task) {
        return phase(name, () -> parallel(count, task));
    }

    static long parallel(int count, IntFunction<LongSupplier> task) {
        if (count == 1) {
            return task.apply(0).getAsLong();
        }
        long[] done = new long[count];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            int id = t;
            LongSupplier body = task.apply(id);
            Thread thread = new Thread(() -> {
                try {
                    done[id] = body.getAsLong();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-" + id);
            started.add(thread);
        }
        started.forEach(Thread::start);
        for (Thread thread : started) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        rethrow(failure.get());
        long sum = 0;
        for (long d : done) {
            sum += d;
        }
        return sum;
    }

    static void rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) {
            throw new IllegalStateException(t);
        }
    }

    /** Reports the spread of a phase's latencies (a warm-up reports nothing). */
    void latency(String phase, Histogram h) {
        if (out == null) {
            return;
        }
        Protocol.Latency l = Protocol.Latency.of(phase, h);
        out.println(l.line());
        progress(String.format("%s latency: p50 %.2f µs, p99 %.2f µs, p99.9 %.2f µs, max %.2f µs", phase,
                l.p50() / 1e3, l.p99() / 1e3, l.p999() / 1e3, l.max() / 1e3));
    }

    /**
     * Syncs the store and reports its size on disk and the heap it holds, per live entry. A warm-up
     * run syncs too and reports nothing: the phases after a sync run other code (pages the synced
     * revision still holds wait to be freed), which the warm-up must have compiled.
     */
    void footprint(String after, KvStore store, long liveEntries) {
        store.sync();
        if (out == null) {
            return;
        }
        long disk = store.bytesOnDisk();
        long heap = Math.max(0, heapUsed() - heapBaseline);
        out.println(new Protocol.Footprint(after, liveEntries, disk, heap).line());
        progress(String.format("footprint after %s: %s bytes/entry on disk, %,d KiB heap", after,
                disk < 0 ? "n/a" : String.format("%.1f", (double) disk / liveEntries), heap >> 10));
    }

    static long heapUsed() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
