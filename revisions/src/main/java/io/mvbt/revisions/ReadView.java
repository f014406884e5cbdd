// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What can be read from one revision: a {@link Snapshot}, or a {@link WriteTxn} (which also sees
 * its own writes). Keys order as unsigned bytes.
 */
public interface ReadView {
    /** The revision read (for a write transaction: the one it will publish). */
    long revision();

    /** Whether the revision has the tree. */
    boolean hasTree(Tree tree);

    /** Names of the trees, in order. */
    List<String> treeNames();

    /** The value of {@code key}, copied, or null. */
    byte[] get(Tree tree, byte[] key);

    /**
     * Looks {@code key} up without copying: on success {@code value} is wrapped around the value
     * bytes in page memory (a value spread over several overflow runs, larger than 64 MiB, is copied
     * instead). The key is read during the call only; the value's memory belongs to the store and
     * stays valid until this snapshot closes, or, in a write transaction, until it next changes
     * anything or ends. In the checked mode ({@link StoreOptions#checked}) a {@code value} still
     * wrapped there after that reads as empty: any read of it throws {@link IndexOutOfBoundsException}.
     */
    boolean get(Tree tree, DirectBuffer key, UnsafeBuffer value);

    boolean contains(Tree tree, byte[] key);

    /** Whether the key in {@code key} is present; the buffer is read during the call only. */
    boolean contains(Tree tree, DirectBuffer key);

    /** Entries in the tree, in O(1). */
    long count(Tree tree);

    /**
     * A number that stays the same while the tree's entries do, in O(1): the revision that wrote the
     * tree's root, or 0 while it is empty. Two views that give a tree the same version hold the same
     * entries in it, so a cache built from one still holds for the other, whatever else was committed
     * between them. In a write transaction that changed the tree, its own revision.
     */
    long treeVersion(Tree tree);

    /**
     * Number of keys smaller than {@code key} ({@code inclusive}: smaller or equal), in O(log n)
     * from the entry counts that branch pages keep.
     */
    long rank(Tree tree, byte[] key, boolean inclusive);

    /** Number of keys in [from, to), in O(log n); a null bound is open. */
    long countRange(Tree tree, byte[] from, byte[] to);

    /**
     * A cursor over the tree; close it (or its view) when done. A cursor of a write transaction sees
     * the transaction's writes as it moves: iterating with it while putting keys ahead of it meets
     * them (see {@link Cursor}).
     */
    Cursor cursor(Tree tree);

    /** Statistics of one tree; walks its pages to count them and measure fill (O(pages)). */
    TreeStats treeStats(Tree tree);
}
