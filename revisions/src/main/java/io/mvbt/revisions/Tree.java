package io.mvbt.revisions;

import java.nio.charset.StandardCharsets;

/**
 * A handle naming one B+tree of a store. Handles are cheap and shared: {@link Store#tree(String)}
 * returns the same handle for the same name. Whether a tree of that name exists is a matter of
 * the revision that is read: see {@link ReadView#hasTree(Tree)}.
 */
public final class Tree {
    /** Longest tree name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 255;

    private final String name;
    private final byte[] key;
    private final int id;

    Tree(String name, int id) {
        this(name, id, false);
    }

    /** Internal trees (the garbage list) have names starting with NUL, which users cannot choose. */
    Tree(String name, int id, boolean internal) {
        this.name = name;
        this.key = name.getBytes(StandardCharsets.UTF_8);
        this.id = id;
        if (name.isEmpty() || key.length > MAX_NAME_BYTES || (name.charAt(0) == 0) != internal) {
            throw new IllegalArgumentException("a tree name is 1 to " + MAX_NAME_BYTES
                    + " UTF-8 bytes and does not start with NUL: '" + name + "'");
        }
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

    @Override
    public String toString() {
        return "Tree[" + name + "]";
    }
}
