// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class ReadAheadTest {
    /** A segment in memory that counts the reads that reach it. */
    private static final class CountingSegment implements RedoStorage.Segment {
        final byte[] bytes;
        int reads;

        CountingSegment(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public long size() {
            return bytes.length;
        }

        @Override
        public int read(ByteBuffer target, long position) {
            reads++;
            int n = (int) Math.max(0, Math.min(target.remaining(), bytes.length - position));
            if (n > 0) {
                target.put(bytes, (int) position, n);
            }
            return n;
        }

        @Override
        public void write(ByteBuffer source, long position) {
            throw new AssertionError();
        }

        @Override
        public void truncate(long size) {
            throw new AssertionError();
        }

        @Override
        public void sync() {
            throw new AssertionError();
        }

        @Override
        public void close() {
        }
    }

    private static byte[] randomBytes(SplittableRandom random, int n) {
        byte[] bytes = new byte[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        return bytes;
    }

    @Test
    void everyReadAnswersAsTheSegmentDoes() {
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 200; round++) {
            int block = 16 + random.nextInt(300);
            CountingSegment direct = new CountingSegment(randomBytes(random, random.nextInt(5 * block)));
            ReadAhead ahead = new ReadAhead(new CountingSegment(direct.bytes), block);
            long position = 0;
            for (int i = 0; i < 100; i++) {
                // Mostly forward, as replay reads; now and then backward, past the end, or larger than a block.
                int kind = random.nextInt(10);
                position = kind == 0 ? random.nextInt(direct.bytes.length + 1)
                        : kind == 1 ? direct.bytes.length + random.nextInt(10) : position;
                int length = kind == 2 ? block + random.nextInt(2 * block) : random.nextInt(block + 1);
                ByteBuffer expected = ByteBuffer.allocate(length);
                ByteBuffer actual = ByteBuffer.allocate(length);
                int n = direct.read(expected, position);
                assertEquals(n, ahead.read(actual, position), "bytes read at " + position + " of " + length);
                assertArrayEquals(Arrays.copyOf(expected.array(), n), Arrays.copyOf(actual.array(), n));
                assertEquals(n, actual.position());
                position += n;
            }
        }
    }

    @Test
    void aForwardScanReadsTheSegmentOncePerBlock() {
        SplittableRandom random = new SplittableRandom(11);
        int block = 4096;
        CountingSegment segment = new CountingSegment(randomBytes(random, 1 << 20));
        ReadAhead ahead = new ReadAhead(segment, block);
        long position = 0;
        int records = 0;
        while (position < segment.bytes.length) {
            // A record: an 8-byte head, then a body of up to 100 bytes, as replay reads them.
            position += ahead.read(ByteBuffer.allocate(8), position);
            position += ahead.read(ByteBuffer.allocate(random.nextInt(101)), position);
            records++;
        }
        assertTrue(records > 10_000);
        // A block is read again from a record that straddles its end: at most one read per block used up.
        assertTrue(segment.reads <= 2 * (segment.bytes.length / (block - 108) + 2),
                segment.reads + " reads for " + records + " records");
    }
}
