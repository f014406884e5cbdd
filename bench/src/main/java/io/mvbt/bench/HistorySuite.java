// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The news-history shape (INN's history table): key = MD5 of a Message-ID (16 bytes), value =
 * an 18-byte storage token and three 4-byte times (arrived, posted, expires). One commit per
 * article, then the checks INN runs: a sequential pass over the table, random lookups, misses.
 */
final class HistorySuite implements Suite {
    static final int TOKEN_SIZE = 18;
    static final int VALUE_SIZE = TOKEN_SIZE + 12;
    private static final int BASE_TIME = 1_700_000_000;

    @Override
    public String name() {
        return "history";
    }

    @Override
    public List<String> phases() {
        return List.of("write", "seqcheck", "randlookup", "missingcheck");
    }

    /** MD5 keys of Message-IDs {@code first .. first+count-1}, 16 bytes each, computed before any timing. */
    static byte[] md5Keys(long first, long count) {
        MessageDigest md5;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] all = new byte[Math.toIntExact(count * 16)];
        for (long i = 0; i < count; i++) {
            md5.update(("<" + (first + i) + "@bench.mvbt.invalid>").getBytes(StandardCharsets.US_ASCII));
            try {
                md5.digest(all, (int) (i * 16), 16);
            } catch (java.security.DigestException e) {
                throw new IllegalStateException(e);
            }
        }
        return all;
    }

    static void value(long i, byte[] v) {
        v[0] = 1; // storage method
        v[1] = (byte) (i % 8); // storage class
        Workload.putLong(v, 2, i);
        Workload.putLong(v, 10, i * 0x9E3779B97F4A7C15L);
        int arrived = BASE_TIME + (int) i;
        putInt(v, TOKEN_SIZE, arrived);
        putInt(v, TOKEN_SIZE + 4, arrived - (int) (i % 3600));
        putInt(v, TOKEN_SIZE + 8, i % 10 == 0 ? arrived + 86400 * 10 : 0);
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    /** The entry a value belongs to, after checking all its fields. */
    static long checkValue(DirectBuffer v) {
        if (v.capacity() != VALUE_SIZE) {
            throw new VerificationException("history value of " + v.capacity() + " bytes, expected " + VALUE_SIZE);
        }
        long i = v.getLong(2, java.nio.ByteOrder.BIG_ENDIAN);
        byte[] expected = new byte[VALUE_SIZE];
        value(i, expected);
        for (int p = 0; p < VALUE_SIZE; p++) {
            if (v.getByte(p) != expected[p]) {
                throw new VerificationException("history value of entry " + i + " differs at byte " + p);
            }
        }
        return i;
    }

    @Override
    public void run(RunContext ctx) {
        long n = ctx.entries;
        long reads = ctx.reads;
        byte[] keys = md5Keys(0, n);
        byte[] missing = md5Keys(n, Math.min(reads, n));
        long missingCount = Math.min(reads, n);

        KvStore db = ctx.open("history");
        byte[] key = new byte[16];
        byte[] value = new byte[VALUE_SIZE];
        ctx.phase("write", () -> {
            for (long i = 0; i < n; i++) {
                System.arraycopy(keys, (int) (i * 16), key, 0, 16);
                value(i, value);
                db.put(key, value);
            }
            return n;
        });
        ctx.footprint("history write", db, n);

        ctx.phase("seqcheck", () -> {
            long seen = 0;
            byte[] previous = null;
            byte[] current = new byte[16];
            try (KvStore.Reader r = db.reader(); KvStore.Scan s = r.scan()) {
                for (boolean on = s.first(); on; on = s.next()) {
                    DirectBuffer k = s.key();
                    if (k.capacity() != 16) {
                        throw new VerificationException("seqcheck: key of " + k.capacity() + " bytes");
                    }
                    k.getBytes(0, current);
                    if (previous != null && Arrays.compareUnsigned(previous, current) >= 0) {
                        throw new VerificationException("seqcheck: keys out of unsigned byte order at entry " + seen);
                    }
                    long i = checkValue(s.value());
                    if (i < 0 || i >= n || !Arrays.equals(keys, (int) (i * 16), (int) (i * 16) + 16, current, 0, 16)) {
                        throw new VerificationException("seqcheck: value of entry " + i + " under another key");
                    }
                    if (previous == null) {
                        previous = new byte[16];
                    }
                    System.arraycopy(current, 0, previous, 0, 16);
                    seen++;
                }
            }
            if (seen != n) {
                throw new VerificationException("seqcheck saw " + seen + " entries of " + n);
            }
            return seen;
        });

        ctx.parallelPhase("randlookup", ctx.threads, t -> () -> {
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 40 + t);
            byte[] k = new byte[16];
            UnsafeBuffer v = new UnsafeBuffer(new byte[0]);
            long count = DbBenchSuite.share(reads, ctx.threads, t);
            try (KvStore.Reader r = db.reader()) {
                for (long j = 0; j < count; j++) {
                    long i = rng.nextLong(n);
                    System.arraycopy(keys, (int) (i * 16), k, 0, 16);
                    if (!r.get(k, v)) {
                        throw new VerificationException("randlookup: entry " + i + " is missing");
                    }
                    if (v.getLong(2, java.nio.ByteOrder.BIG_ENDIAN) != i || v.capacity() != VALUE_SIZE) {
                        throw new VerificationException("randlookup: wrong value for entry " + i);
                    }
                }
            }
            return count;
        });

        ctx.parallelPhase("missingcheck", ctx.threads, t -> () -> {
            SplittableRandom rng = new SplittableRandom(Workload.SEED + 50 + t);
            byte[] k = new byte[16];
            UnsafeBuffer v = new UnsafeBuffer(new byte[0]);
            long count = DbBenchSuite.share(reads, ctx.threads, t);
            try (KvStore.Reader r = db.reader()) {
                for (long j = 0; j < count; j++) {
                    long i = rng.nextLong(missingCount);
                    System.arraycopy(missing, (int) (i * 16), k, 0, 16);
                    if (r.get(k, v)) {
                        throw new VerificationException("missingcheck: found an id that was never written");
                    }
                }
            }
            return count;
        });
        ctx.discard(db, "history");
    }
}
