// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;

import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.btree.TreeRoot;

/**
 * Roots of trees newer than their entries in the catalog, kept in the meta page. A commit writes a
 * meta page anyway; a commit that changes only trees that fit here writes their roots into it and
 * leaves the catalog alone, saving a copy of the catalog's leaf (one page in four of a one-key
 * commit into a million-entry tree). Creating or dropping a tree, or a commit whose trees do not
 * fit, folds every fresh root back into the catalog. Immutable.
 *
 * <p>Layout in the meta, after the flips (docs/format.md): {@code u32 count}, then per root
 * {@code u32 keyLength, u32 0, 32 bytes root, key} with the key padded to 8 bytes.
 */
final class FreshRoots {
    /** Most roots kept: a commit that touches more trees folds them into the catalog. */
    static final int MAX_ROOTS = 8;
    /** Longest tree name (UTF-8 bytes) kept here; trees with longer names live in the catalog only. */
    static final int MAX_KEY = 128;
    /** Bytes of the section at most: the count, and the largest roots. */
    static final int MAX_BYTES = 4 + MAX_ROOTS * (8 + TreeRoot.BYTES + MAX_KEY);

    static final FreshRoots NONE = new FreshRoots(new byte[0][], new TreeRoot[0]);
    private static final long BYTE_BASE = UNSAFE.arrayBaseOffset(byte[].class);

    private final byte[][] keys;
    private final TreeRoot[] roots;

    private FreshRoots(byte[][] keys, TreeRoot[] roots) {
        this.keys = keys;
        this.roots = roots;
    }

    int size() {
        return keys.length;
    }

    byte[] key(int i) {
        return keys[i];
    }

    TreeRoot root(int i) {
        return roots[i];
    }

    /** The fresh root of the tree named {@code key}, or null if the catalog holds its root. */
    TreeRoot lookup(byte[] key) {
        for (int i = 0; i < keys.length; i++) {
            if (Arrays.equals(keys[i], key)) {
                return roots[i];
            }
        }
        return null;
    }

    /**
     * These roots with {@code root} for the tree named {@code key}, or null if it does not fit. The
     * root is kept, not copied: it must never change afterwards (a published root).
     */
    FreshRoots with(byte[] key, TreeRoot root) {
        for (int i = 0; i < keys.length; i++) {
            if (Arrays.equals(keys[i], key)) {
                TreeRoot[] r = roots.clone();
                r[i] = root;
                return new FreshRoots(keys, r);
            }
        }
        if (keys.length == MAX_ROOTS || key.length > MAX_KEY) {
            return null;
        }
        byte[][] k = Arrays.copyOf(keys, keys.length + 1);
        TreeRoot[] r = Arrays.copyOf(roots, roots.length + 1);
        k[keys.length] = key;
        r[keys.length] = root;
        return new FreshRoots(k, r);
    }

    /** Bytes the section takes in the meta. */
    int bytes() {
        int n = 4;
        for (byte[] key : keys) {
            n += entryBytes(key.length);
        }
        return n;
    }

    private static int entryBytes(int keyLength) {
        return 8 + TreeRoot.BYTES + ((keyLength + 7) & ~7);
    }

    /** Writes the section, {@link #bytes()} long, at {@code address}. */
    void writeTo(long address) {
        UNSAFE.putInt(address, keys.length);
        long at = address + 4;
        for (int i = 0; i < keys.length; i++) {
            byte[] key = keys[i];
            UNSAFE.putInt(at, key.length);
            UNSAFE.putInt(at + 4, 0);
            roots[i].writeTo(null, at + 8);
            long keyAt = at + 8 + TreeRoot.BYTES;
            int padded = (key.length + 7) & ~7;
            if (padded > 0) {
                // Zero padding (plain stores: Unsafe.setMemory is a native call on JDK 17).
                UNSAFE.putLong(keyAt + padded - 8, 0L);
            }
            UNSAFE.copyMemory(key, BYTE_BASE, null, keyAt, key.length);
            at += entryBytes(key.length);
        }
    }

    /**
     * Reads a section of exactly {@code length} bytes at {@code address}; null if it is not one
     * (the meta is then damaged).
     */
    static FreshRoots readFrom(long address, int length) {
        if (length < 4) {
            return null;
        }
        int count = UNSAFE.getInt(address);
        if (count < 0 || count > MAX_ROOTS) {
            return null;
        }
        byte[][] keys = new byte[count][];
        TreeRoot[] roots = new TreeRoot[count];
        long at = address + 4;
        long end = address + length;
        for (int i = 0; i < count; i++) {
            if (end - at < 8 + TreeRoot.BYTES) {
                return null;
            }
            int keyLength = UNSAFE.getInt(at);
            if (keyLength < 0 || keyLength > MAX_KEY || end - at < entryBytes(keyLength)) {
                return null;
            }
            roots[i] = new TreeRoot().readFrom(null, at + 8);
            keys[i] = new byte[keyLength];
            UNSAFE.copyMemory(null, at + 8 + TreeRoot.BYTES, keys[i], BYTE_BASE, keyLength);
            at += entryBytes(keyLength);
        }
        return at == end ? (count == 0 ? NONE : new FreshRoots(keys, roots)) : null;
    }
}
