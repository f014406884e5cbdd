// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;

import static org.agrona.UnsafeAccess.UNSAFE;

/**
 * The changes of one write transaction, as the {@link RedoLog} records them: each operation that
 * changed something, in order, in the layout {@code docs/format.md} gives ("The redo log"). Reused
 * from one transaction to the next. A transaction whose changes pass {@link #MAX_BYTES} stops
 * recording ({@link #overflowed()}); its commit is made durable by syncing its pages instead.
 */
final class RedoRecord {
    static final byte PUT = 1;
    static final byte DELETE = 2;
    static final byte DELETE_RANGE = 3;
    static final byte CREATE_TREE = 4;
    static final byte DROP_TREE = 5;
    static final byte LOAD = 6;
    static final byte LOAD_ADD = 7;
    static final byte LOAD_END = 8;

    /** Largest record kept in memory: larger transactions (bulk loads, mostly) sync their pages. */
    static final int MAX_BYTES = 64 << 20;
    /** The limit in force ({@link #MAX_BYTES}; tests make it small). */
    static int maxBytes = MAX_BYTES;

    private static final long BYTES_BASE = UNSAFE.arrayBaseOffset(byte[].class);
    private static final int INITIAL = 4096;

    private byte[] bytes = new byte[INITIAL];
    private int length;
    /** The tree of the last operation: the next one on it writes no name. */
    private Tree lastTree;
    private boolean overflowed;

    /** Starts the record of a new transaction. */
    RedoRecord reset() {
        length = 0;
        lastTree = null;
        overflowed = false;
        if (bytes.length > 1 << 20) {
            // One large transaction does not keep its buffer for good.
            bytes = new byte[INITIAL];
        }
        return this;
    }

    /**
     * The transaction changes what no record says (the named revisions): it is not recorded, and
     * is made durable by its pages, as one too large to record.
     */
    void unrecordable() {
        overflowed = true;
        length = 0;
    }

    boolean overflowed() {
        return overflowed;
    }

    byte[] bytes() {
        return bytes;
    }

    int length() {
        return length;
    }

    void put(Tree tree, Object keyBase, long keyOffset, int keyLength, Object valueBase, long valueOffset,
            int valueLength) {
        if (start(PUT, tree, (long) keyLength + valueLength)) {
            blob(keyBase, keyOffset, keyLength);
            blob(valueBase, valueOffset, valueLength);
        }
    }

    void delete(Tree tree, Object keyBase, long keyOffset, int keyLength) {
        if (start(DELETE, tree, keyLength)) {
            blob(keyBase, keyOffset, keyLength);
        }
    }

    void deleteRange(Tree tree, byte[] from, byte[] to) {
        if (start(DELETE_RANGE, tree, (long) from.length + to.length)) {
            blob(from, BYTES_BASE, from.length);
            blob(to, BYTES_BASE, to.length);
        }
    }

    void createTree(Tree tree) {
        start(CREATE_TREE, tree, 0);
    }

    void dropTree(Tree tree) {
        start(DROP_TREE, tree, 0);
    }

    void load(Tree tree, double fill) {
        if (start(LOAD, tree, 8)) {
            long bits = Double.doubleToRawLongBits(fill);
            for (int i = 0; i < 8; i++) {
                bytes[length++] = (byte) (bits >>> (8 * i));
            }
        }
    }

    void loadAdd(Object keyBase, long keyOffset, int keyLength, Object valueBase, long valueOffset, int valueLength) {
        if (start(LOAD_ADD, null, (long) keyLength + valueLength)) {
            blob(keyBase, keyOffset, keyLength);
            blob(valueBase, valueOffset, valueLength);
        }
    }

    void loadEnd() {
        start(LOAD_END, null, 0);
    }

    /**
     * Writes the operation code and, for {@code tree} other than null, the tree: its name's length
     * (one byte) and name, or 0 for the tree of the operation before. Returns false once the record
     * has overflowed.
     */
    private boolean start(byte op, Tree tree, long payload) {
        if (overflowed) {
            return false;
        }
        // Code, name, and two lengths of up to 5 bytes each.
        long need = 1 + 1 + Tree.MAX_NAME_BYTES + 10 + payload;
        if (length + need > maxBytes) {
            overflowed = true;
            bytes = new byte[INITIAL];
            length = 0;
            return false;
        }
        ensure((int) need);
        bytes[length++] = op;
        if (tree != null) {
            if (tree == lastTree) {
                bytes[length++] = 0;
            } else {
                byte[] name = tree.key();
                bytes[length++] = (byte) name.length;
                System.arraycopy(name, 0, bytes, length, name.length);
                length += name.length;
                lastTree = tree;
            }
        }
        return true;
    }

    /** A length (unsigned LEB128) and the bytes; room was ensured by {@link #start}. */
    private void blob(Object base, long offset, int n) {
        int v = n;
        while ((v & ~0x7F) != 0) {
            bytes[length++] = (byte) (v & 0x7F | 0x80);
            v >>>= 7;
        }
        bytes[length++] = (byte) v;
        UNSAFE.copyMemory(base, offset, bytes, BYTES_BASE + length, n);
        length += n;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(Math.max(maxBytes, length + more),
                    Math.max((long) bytes.length * 2, (long) length + more)));
        }
    }
}
