// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.charset.StandardCharsets;

/**
 * A handle naming one B+tree of a store. Handles are cheap and shared: {@link Store#tree(String)}
 * returns the same handle for the same name. Whether a tree of that name exists is a matter of
 * the revision that is read: see {@link ReadView#hasTree(Tree)}.
 *
 * <p>A handle stands for its name. Used with another {@code Store} object than the one that gave
 * it (a store closed and opened again, say), it means the tree of the same name in that store,
 * so handles kept across a reopen go on working.
 */
public final class Tree {
    /** Longest tree name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 255;

    private final String name;
    private final byte[] key;
    private final int id;
    private final Store owner;

    Tree(String name, int id, Store owner) {
        this(name, id, owner, false);
    }

    /** Internal trees (the garbage list) have names starting with NUL, which users cannot choose. */
    Tree(String name, int id, Store owner, boolean internal) {
        if (name.isEmpty() || (name.charAt(0) == 0) != internal) {
            throw new IllegalArgumentException("a tree name is 1 to " + MAX_NAME_BYTES
                    + " UTF-8 bytes and does not start with NUL: '" + name + "'");
        }
        int bad = unpairedSurrogate(name);
        if (bad >= 0) {
            // UTF-8 would turn it into '?', and two names would share one catalog key.
            throw new IllegalArgumentException("tree name '" + name + "' has an unpaired surrogate (U+"
                    + Integer.toHexString(name.charAt(bad)).toUpperCase(java.util.Locale.ROOT) + ") at index " + bad
                    + ": a tree name must be well-formed UTF-16");
        }
        this.name = name;
        this.key = name.getBytes(StandardCharsets.UTF_8);
        this.id = id;
        this.owner = owner;
        if (key.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("a tree name is 1 to " + MAX_NAME_BYTES
                    + " UTF-8 bytes and does not start with NUL: '" + name + "' has " + key.length);
        }
    }

    /** Index of the first surrogate without its partner, or -1. */
    private static int unpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    public String name() {
        return name;
    }

    /** The catalog key. */
    byte[] key() {
        return key;
    }

    /** Small number identifying the handle within its store, for per-revision caches. */
    int id() {
        return id;
    }

    /** The store that gave the handle. */
    Store owner() {
        return owner;
    }

    @Override
    public String toString() {
        return "Tree[" + name + "]";
    }
}
