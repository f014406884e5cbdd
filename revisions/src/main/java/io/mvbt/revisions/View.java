// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.ref.Reference;
import java.util.List;

import org.agrona.DirectBuffer;
import static org.agrona.UnsafeAccess.UNSAFE;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.ClosedException;
import io.mvbt.KeyTooLargeException;
import io.mvbt.TreeNotFoundException;
import io.mvbt.btree.Node;
import io.mvbt.btree.Overflow;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.TreeReader;
import io.mvbt.btree.TreeRoot;
import io.mvbt.btree.TreeWalker;

/** The reading half shared by {@link Snapshot} and {@link WriteTxn}. */
abstract class View implements ReadView {
    static final long BYTE_BASE = UNSAFE.arrayBaseOffset(byte[].class);

    final Store store;
    /** Views of page memory handed to the caller, and when they stop being valid. */
    final LentViews lent;

    View(Store store) {
        this.store = store;
        this.lent = LentViews.of(store.options().checked());
    }

    /**
     * Begins an operation on the view: throws {@link ClosedException} if the view (or its store) may
     * no longer be used. Every call is paired with a {@link #done()} once the operation has read what
     * it reads (in a {@code finally}); a write transaction's operation holds its {@link TxnGate} in between.
     */
    abstract void checkUsable();

    /**
     * Ends an operation begun by {@link #checkUsable()}. A snapshot checks again that neither it nor
     * its store closed meanwhile: a close releases the snapshot's revision, so pages read after it may
     * hold another revision's data (another process may open the store and reuse them).
     */
    abstract void done();

    /** The root of {@code tree} in this view, or {@link Revision#ABSENT}. */
    abstract TreeRoot rootOf(Tree tree);

    abstract PageReader reader();

    /** The catalog root of this view. */
    abstract TreeRoot catalog();

    final TreeRoot existingRoot(Tree tree) {
        TreeRoot root = rootOf(tree);
        if (root == Revision.ABSENT) {
            throw new TreeNotFoundException("revision " + revision() + " has no tree '" + tree.name() + "': create it"
                    + " in a write transaction with createTreeIfAbsent (ReadView.hasTree asks whether it exists)");
        }
        return root;
    }

    final void checkKey(int length) {
        int max = store.limits().maxKeySize;
        if (length > max) {
            throw new KeyTooLargeException("key of " + length + " bytes is longer than the limit of " + max
                    + " bytes (a quarter of the " + store.limits().pageSize + "-byte page)");
        }
    }

    @Override
    public boolean hasTree(Tree tree) {
        checkUsable();
        try {
            return rootOf(tree) != Revision.ABSENT;
        } finally {
            done();
        }
    }

    @Override
    public List<String> treeNames() {
        checkUsable();
        try {
            return Catalog.names(reader(), catalog());
        } finally {
            done();
        }
    }

    /** The entry of the key, or 0; between {@link #checkUsable()} and {@link #done()}, which the caller runs. */
    private long find(Tree tree, Object keyBase, long keyOff, int keyLen) {
        checkKey(keyLen);
        TreeRoot root = existingRoot(tree);
        return TreeReader.findEntry(reader(), root.page, root.revision, root.depth, keyBase, keyOff, keyLen);
    }

    @Override
    public byte[] get(Tree tree, byte[] key) {
        java.util.Objects.requireNonNull(key, "key must not be null");
        checkUsable();
        try {
            long entry = find(tree, key, BYTE_BASE, key.length);
            if (entry == 0) {
                return null;
            }
            int length = TreeReader.valueLength(entry);
            byte[] value = new byte[length];
            long at = TreeReader.valueAddress(entry);
            if (TreeReader.isOverflow(entry)) {
                Overflow.read(reader(), UNSAFE.getLong(at), UNSAFE.getLong(at + 8), length, value, BYTE_BASE);
            } else {
                UNSAFE.copyMemory(null, at, value, BYTE_BASE, length);
            }
            return value;
        } finally {
            done();
        }
    }

    @Override
    public boolean get(Tree tree, DirectBuffer key, UnsafeBuffer value) {
        checkUsable();
        try {
            return lendValue(tree, key, value);
        } finally {
            done();
        }
    }

    private boolean lendValue(Tree tree, DirectBuffer key, UnsafeBuffer value) {
        long entry;
        try {
            entry = find(tree, key.byteArray(), key.addressOffset(), key.capacity());
        } finally {
            Reference.reachabilityFence(key);
        }
        if (entry == 0) {
            return false;
        }
        int length = TreeReader.valueLength(entry);
        long at = TreeReader.valueAddress(entry);
        if (!TreeReader.isOverflow(entry)) {
            lent.lend(value, at, length);
            return true;
        }
        long pageNo = UNSAFE.getLong(at);
        long revision = UNSAFE.getLong(at + 8);
        long contiguous = Overflow.contiguousAddress(reader(), pageNo, revision, length);
        if (contiguous != 0) {
            lent.lend(value, contiguous, length);
        } else {
            byte[] copy = new byte[length];
            Overflow.read(reader(), pageNo, revision, length, copy, BYTE_BASE);
            value.wrap(copy);
        }
        return true;
    }

    @Override
    public boolean contains(Tree tree, byte[] key) {
        java.util.Objects.requireNonNull(key, "key must not be null");
        checkUsable();
        try {
            return find(tree, key, BYTE_BASE, key.length) != 0;
        } finally {
            done();
        }
    }

    @Override
    public boolean contains(Tree tree, DirectBuffer key) {
        checkUsable();
        try {
            return find(tree, key.byteArray(), key.addressOffset(), key.capacity()) != 0;
        } finally {
            Reference.reachabilityFence(key);
            done();
        }
    }

    @Override
    public long count(Tree tree) {
        checkUsable();
        try {
            return existingRoot(tree).entries;
        } finally {
            done();
        }
    }

    @Override
    public long treeVersion(Tree tree) {
        checkUsable();
        try {
            TreeRoot root = existingRoot(tree);
            return root.isEmpty() ? 0 : root.revision;
        } finally {
            done();
        }
    }

    @Override
    public long rank(Tree tree, byte[] key, boolean inclusive) {
        java.util.Objects.requireNonNull(key, "key must not be null");
        checkUsable();
        try {
            checkKey(key.length);
            return TreeReader.rank(reader(), existingRoot(tree), key, BYTE_BASE, key.length, inclusive);
        } finally {
            done();
        }
    }

    @Override
    public long countRange(Tree tree, byte[] from, byte[] to) {
        long below = to == null ? count(tree) : rank(tree, to, false);
        return Math.max(0, below - (from == null ? 0 : rank(tree, from, false)));
    }

    @Override
    public TreeStats treeStats(Tree tree) {
        checkUsable();
        try {
            return walkStats(tree);
        } finally {
            done();
        }
    }

    private TreeStats walkStats(Tree tree) {
        TreeRoot root = existingRoot(tree);
        int pageSize = store.limits().pageSize;
        // used bytes of leaves, leaves, branches, overflow pages
        long[] counts = new long[4];
        TreeWalker.walk(reader(), root, -1, new TreeWalker.Visitor() {
            @Override
            public void node(long pageNo, long revision, long address, int level) {
                if (level == 0) {
                    counts[0] += Node.usedBytes(address, pageSize);
                    counts[1]++;
                } else {
                    counts[2]++;
                }
            }

            @Override
            public void overflow(long pageNo, long revision, long address) {
                counts[3] += io.mvbt.btree.PageValidator.overflowPages(address);
            }
        });
        double capacity = (double) counts[1] * store.limits().usable;
        return new TreeStats(tree.name(), root.entries, root.depth, counts[2], counts[1], counts[3],
                capacity == 0 ? 0 : counts[0] / capacity);
    }
}
