// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import org.HdrHistogram.Histogram;

/**
 * The lines a child JVM prints on standard output for its parent, tab-separated:
 * {@code RESULT phase ops nanos}, {@code FOOTPRINT after entries diskBytes heapBytes},
 * {@code LATENCY phase count p50 p99 p999 max} (nanoseconds),
 * {@code COST phase minorFaults majorFaults gcCount gcMillis}, {@code SETTING text},
 * {@code NOTE text}. Anything else on the child's output is progress text.
 */
public final class Protocol {
    public static final String RESULT = "RESULT";
    public static final String FOOTPRINT = "FOOTPRINT";
    public static final String LATENCY = "LATENCY";
    public static final String COST = "COST";
    public static final String SETTING = "SETTING";
    public static final String NOTE = "NOTE";

    private Protocol() {
    }

    /** A timed phase. */
    public record Timing(String phase, long ops, long nanos) {
        public double opsPerSecond() {
            return nanos == 0 ? 0 : ops * 1e9 / nanos;
        }

        public double microsPerOp() {
            return ops == 0 ? 0 : nanos / 1e3 / ops;
        }

        String line() {
            return RESULT + '\t' + phase + '\t' + ops + '\t' + nanos;
        }
    }

    /**
     * Space after a load: the store's files, and the heap it holds beyond what the JVM held before
     * (-1: not measured, as after a close).
     */
    public record Footprint(String after, long entries, long diskBytes, long heapBytes) {
        /** Bytes on disk per live entry, or -1 for a store without files. */
        public double bytesPerEntry() {
            return diskBytes < 0 || entries == 0 ? -1 : (double) diskBytes / entries;
        }

        String line() {
            return FOOTPRINT + '\t' + after + '\t' + entries + '\t' + diskBytes + '\t' + heapBytes;
        }
    }

    /** The spread of one phase's operation latencies, in nanoseconds. */
    public record Latency(String phase, long count, long p50, long p99, long p999, long max) {
        static Latency of(String phase, Histogram h) {
            return new Latency(phase, h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                    h.getValueAtPercentile(99.9), h.getMaxValue());
        }

        String line() {
            return LATENCY + '\t' + phase + '\t' + count + '\t' + p50 + '\t' + p99 + '\t' + p999 + '\t' + max;
        }
    }

    /** What a phase cost the process beyond its work: page faults and garbage collection. */
    public record Cost(String phase, long minorFaults, long majorFaults, long gcCount, long gcMillis) {
        String line() {
            return COST + '\t' + phase + '\t' + minorFaults + '\t' + majorFaults + '\t' + gcCount + '\t' + gcMillis;
        }
    }

    static String setting(String text) {
        return SETTING + '\t' + text.replace('\t', ' ').replace('\n', ' ');
    }

    static String note(String text) {
        return NOTE + '\t' + text.replace('\t', ' ').replace('\n', ' ');
    }

    /** What a parent learns from one child's line; null for progress text. */
    static Object parse(String line) {
        String[] f = line.split("\t", -1);
        switch (f[0]) {
            case RESULT:
                if (f.length == 4) {
                    return new Timing(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]));
                }
                break;
            case FOOTPRINT:
                if (f.length == 5) {
                    return new Footprint(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]));
                }
                break;
            case LATENCY:
                if (f.length == 7) {
                    return new Latency(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                            Long.parseLong(f[5]), Long.parseLong(f[6]));
                }
                break;
            case COST:
                if (f.length == 6) {
                    return new Cost(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                            Long.parseLong(f[5]));
                }
                break;
            case SETTING:
            case NOTE:
                if (f.length == 2) {
                    return new String[] {f[0], f[1]};
                }
                break;
            default:
                break;
        }
        return null;
    }
}
