// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteOrder;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.btree.Detached;
import io.mvbt.btree.Node;
import io.mvbt.btree.PageWriter;
import io.mvbt.btree.TreeCursor;
import io.mvbt.btree.TreeEditor;
import io.mvbt.btree.TreeRoot;

/**
 * Subtrees cut off by range deletions and dropped trees, waiting to be freed. They are kept, with
 * the data, in an internal tree of the catalog ({@value #NAME}): a record per subtree root, keyed
 * by a sequence number. Each commit frees a bounded number of their pages ({@link #reclaim}), so a
 * deletion of millions of keys costs its commit only the boundary pages, and the space returns
 * over the following commits. Until freed, their pages count as in use.
 *
 * <pre>
 * key:   u64 sequence (big-endian, so records sort in order of detachment)
 * value: u64 page, u64 revision, u16 level, u16 flags (bit 0: the subtree holds no overflow value;
 *        format 2 wrote a u32 level, which reads the same)
 * </pre>
 */
final class Garbage implements Detached {
    static final String NAME = "\0garbage";
    static final int RECORD_BYTES = 20;

    private final TreeEditor editor;
    private final PageWriter pages;
    /** Gives the garbage tree's root, creating it (and marking it changed) on first use. */
    private java.util.function.Supplier<TreeRoot> rootSource;
    private TreeRoot root;
    private final UnsafeBuffer key = new UnsafeBuffer(new byte[8]);
    private final UnsafeBuffer record = new UnsafeBuffer(new byte[RECORD_BYTES]);
    private final TreeCursor cursor = new TreeCursor();
    private long nextSequence = -1;
    private boolean changed;
    /**
     * Detached leaves that may hold overflow values, read and freed at once instead of listed, per
     * transaction: a leaf is one page (and its overflow values), so a small range deletion costs no
     * list at all, while a large one still hands almost everything to later commits.
     */
    private static final int INLINE_LEAVES = 32;
    /** What is left of {@link #INLINE_LEAVES} in this transaction. */
    private int inlineLeaves;
    /** Pages of leaves that {@link #detach} freed at once, counted by {@link #reclaim}. */
    private long freedAtOnce;

    /** The writer's list, for one transaction after another ({@link #begin}). */
    Garbage(TreeEditor editor, PageWriter pages) {
        this.editor = editor;
        this.pages = pages;
    }

    /** Starts a transaction's use of the list, whose tree root {@code rootSource} gives. */
    Garbage begin(java.util.function.Supplier<TreeRoot> rootSource) {
        this.rootSource = rootSource;
        root = null;
        nextSequence = -1;
        changed = false;
        inlineLeaves = INLINE_LEAVES;
        freedAtOnce = 0;
        return this;
    }

    private TreeRoot root() {
        if (root == null) {
            root = rootSource.get();
        }
        return root;
    }

    /** Whether this transaction listed or removed a record. */
    boolean changed() {
        return changed;
    }

    @Override
    public void detach(long pageNo, long revision, int level, boolean inlineOnly) {
        if (level == 0 && (inlineOnly || inlineLeaves > 0)) {
            // A leaf known to hold no overflow value is freed without being read: no limit on those.
            if (!inlineOnly) {
                inlineLeaves--;
            }
            freedAtOnce += editor.reclaimStep(pages, pageNo, revision, 0, inlineOnly, this);
            return;
        }
        TreeRoot root = root();
        if (nextSequence < 0) {
            cursor.reset(pages, root);
            nextSequence = cursor.last() ? sequenceAt(cursor) + 1 : 0;
        }
        key.putLong(0, nextSequence++, ByteOrder.BIG_ENDIAN);
        record.putLong(0, pageNo);
        record.putLong(8, revision);
        record.putShort(16, (short) level);
        record.putShort(18, (short) (inlineOnly ? Node.INLINE_ONLY : 0));
        editor.put(pages, root, key.byteArray(), key.addressOffset(), 8, record.byteArray(), record.addressOffset(),
                RECORD_BYTES);
        changed = true;
    }

    /** Frees up to about {@code budget} pages of detached subtrees, oldest first; returns the pages freed. */
    long reclaim(long budget) {
        TreeRoot root = root();
        long freed = 0;
        while (freed < budget && !root.isEmpty()) {
            cursor.reset(pages, root);
            cursor.first();
            long address = cursor.entryAddress();
            long value = io.mvbt.btree.TreeReader.valueAddress(address);
            long pageNo = UNSAFE.getLong(value);
            long revision = UNSAFE.getLong(value + 8);
            int level = level(value);
            boolean inlineOnly = inlineOnly(value);
            UNSAFE.copyMemory(null, cursor.keyAddress(), key.byteArray(), key.addressOffset(), 8);
            editor.delete(pages, root, key.byteArray(), key.addressOffset(), 8);
            changed = true;
            freedAtOnce = 0;
            freed += editor.reclaimStep(pages, pageNo, revision, level, inlineOnly, this) + freedAtOnce;
        }
        return freed;
    }

    private static long sequenceAt(TreeCursor cursor) {
        return Long.reverseBytes(UNSAFE.getLong(cursor.keyAddress()));
    }

    /** A listed subtree: its root page, the revision that wrote it, its level, whether it is inline-only. */
    record Subtree(long page, long revision, int level, boolean inlineOnly) {
        TreeRoot root() {
            TreeRoot root = new TreeRoot();
            root.page = page;
            root.revision = revision;
            root.depth = level + 1;
            return root;
        }
    }

    /** Reads a record at a value address. */
    static Subtree read(long value) {
        return new Subtree(UNSAFE.getLong(value), UNSAFE.getLong(value + 8), level(value), inlineOnly(value));
    }

    private static int level(long value) {
        return UNSAFE.getShort(value + 16) & 0xFFFF;
    }

    private static boolean inlineOnly(long value) {
        return (UNSAFE.getShort(value + 18) & Node.INLINE_ONLY) != 0;
    }
}
