// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

import org.agrona.DirectBuffer;

import io.mvbt.revisions.DiffVisitor;

/**
 * Writes one delta file ({@link DeltaFormat}) from a diff: the visitor turns each change into a
 * record, {@link #finish} writes the trailer and makes the file durable under its final name. Until
 * then the file has a temporary name, so the final name never holds a partial delta.
 */
final class DeltaWriter implements DiffVisitor, AutoCloseable {
    private final Path target;
    private final Path partial;
    private final DurableFiles files;
    private final FileChannel channel;
    private final CRC32C whole = new CRC32C();
    private final DeltaFormat.GrowingBytes block = new DeltaFormat.GrowingBytes();
    private String selected;
    private long records;
    private long blocks;
    private long payloadBytes;
    private boolean finished;

    DeltaWriter(Path target, DeltaFormat.Header header, DurableFiles files) {
        this.target = target;
        this.partial = target.resolveSibling(target.getFileName() + ".partial");
        this.files = files;
        try {
            channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
            write(header.bytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + partial, e);
        }
    }

    @Override
    public void treeCreated(String tree) {
        name(DeltaFormat.CREATE, tree);
        selected = tree;
    }

    @Override
    public void treeDropped(String tree, long entries) {
        name(DeltaFormat.DROP, tree);
        if (tree.equals(selected)) {
            selected = null;
        }
    }

    @Override
    public void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue) {
        if (!tree.equals(selected)) {
            name(DeltaFormat.TREE, tree);
            selected = tree;
        }
        // The old value is not kept: a restore only moves forward.
        block.put(newValue == null ? DeltaFormat.DELETE : DeltaFormat.PUT);
        DeltaFormat.putVarint(block, key.capacity());
        block.put(key);
        if (newValue != null) {
            DeltaFormat.putVarint(block, newValue.capacity());
            block.put(newValue);
        }
        recorded();
    }

    private void name(byte type, String tree) {
        byte[] utf8 = tree.getBytes(StandardCharsets.UTF_8);
        block.put(type);
        DeltaFormat.putVarint(block, utf8.length);
        block.put(utf8);
        recorded();
    }

    private void recorded() {
        records++;
        if (block.length >= DeltaFormat.BLOCK_TARGET) {
            flushBlock();
        }
    }

    private void flushBlock() {
        if (block.length == 0) {
            return;
        }
        ByteBuffer head = DeltaFormat.buffer(8);
        head.putInt(block.length).putInt(DeltaFormat.crc(block.bytes, 0, block.length));
        try {
            write(head.array());
            write(java.util.Arrays.copyOf(block.bytes, block.length));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + partial, e);
        }
        blocks++;
        payloadBytes += block.length;
        block.length = 0;
    }

    private void write(byte[] bytes) throws IOException {
        whole.update(bytes);
        ByteBuffer b = DeltaFormat.wrap(bytes);
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }

    /**
     * Writes the trailer, syncs the file, renames it to its final name and syncs the directory: once
     * this returns, the delta survives a power cut. Returns the file's size.
     */
    long finish() {
        flushBlock();
        ByteBuffer t = DeltaFormat.buffer(DeltaFormat.TRAILER_BYTES);
        t.putInt(0).putLong(records).putLong(blocks).putLong(payloadBytes).putInt((int) whole.getValue());
        t.putInt(DeltaFormat.crc(t.array(), 0, DeltaFormat.TRAILER_BYTES - 4));
        try {
            write(t.array());
            files.force(channel, partial);
            long size = channel.size();
            channel.close();
            files.move(partial, target, false);
            files.syncDirectory(target.toAbsolutePath().getParent());
            finished = true;
            return size;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }

    long records() {
        return records;
    }

    /** Leaves nothing behind unless {@link #finish} completed. */
    @Override
    public void close() {
        if (finished) {
            return;
        }
        try {
            channel.close();
            files.delete(partial);
        } catch (IOException ignored) {
            // The delta already failed; that failure is the one to report.
        }
    }
}
