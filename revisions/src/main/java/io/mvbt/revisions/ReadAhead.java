// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;

/**
 * A redo segment read front to back in large blocks: replay asks for a record's head and then its
 * body, a few dozen bytes each, and two system calls per record made reading 2 million records take
 * 14 to 25 s on ext4 and over two minutes on a FUSE file system. Reads that fall in the block held
 * are copied from it; any other refills the block from where it starts. Only reads go through it.
 */
final class ReadAhead implements RedoStorage.Segment {
    /** One block: large enough that a system call per block costs little, small enough to stay in cache. */
    static final int BLOCK_BYTES = 1 << 20;

    private final RedoStorage.Segment segment;
    private final ByteBuffer block;
    /** Where the block starts in the segment, and how many bytes of it are read (-1: none yet). */
    private long blockStart = -1;
    private int blockBytes;

    ReadAhead(RedoStorage.Segment segment) {
        this(segment, BLOCK_BYTES);
    }

    ReadAhead(RedoStorage.Segment segment, int blockBytes) {
        this.segment = segment;
        this.block = ByteBuffer.allocate(blockBytes);
    }

    @Override
    public long size() {
        return segment.size();
    }

    @Override
    public int read(ByteBuffer target, long position) {
        int wanted = target.remaining();
        if (wanted > block.capacity()) {
            // A record larger than a block is read at once.
            return segment.read(target, position);
        }
        if (blockStart < 0 || position < blockStart || position + wanted > blockStart + blockBytes) {
            fill(position);
        }
        int offset = (int) (position - blockStart);
        int n = Math.max(0, Math.min(wanted, blockBytes - offset));
        target.put(block.array(), offset, n);
        return n;
    }

    private void fill(long position) {
        block.clear();
        blockStart = position;
        blockBytes = segment.read(block, position);
    }

    @Override
    public void write(ByteBuffer source, long position) {
        throw new UnsupportedOperationException("a segment read ahead is read only");
    }

    @Override
    public void truncate(long size) {
        throw new UnsupportedOperationException("a segment read ahead is read only");
    }

    @Override
    public void sync() {
        throw new UnsupportedOperationException("a segment read ahead is read only");
    }

    @Override
    public void close() {
        segment.close();
    }
}
