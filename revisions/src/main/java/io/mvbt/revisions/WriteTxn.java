// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.agrona.DirectBuffer;

import io.mvbt.ClosedException;
import io.mvbt.StorageException;
import io.mvbt.TreeExistsException;
import io.mvbt.TreeNotFoundException;
import io.mvbt.btree.Keys;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.TreeCursor;
import io.mvbt.btree.TreeEditor;
import io.mvbt.btree.TreeRoot;

/**
 * The single write transaction of a store. It reads the newest revision plus its own writes, and
 * publishes a new revision on {@link #commit()}. Closing it without a commit aborts it. Use it from
 * one thread at a time. A {@link Store#close()} aborts it, from any thread: its next call then fails
 * with {@link ClosedException}, and its {@code close} does nothing.
 */
public final class WriteTxn extends View implements AutoCloseable {
    private final long revision;
    private final Revision base;
    private final TxnPages pages;
    /** The writer's state, which this transaction's hold on the writer permit gave. */
    private final WriterState writer;
    private final TreeEditor editor;
    private final TreeRoot catalog;
    private final Scratch scratch;
    private final Committer committer;
    /** Ends the transaction's hold on the writer. */
    private final Runnable onEnd;
    /**
     * Open cursors, told of every change. Held weakly: a cursor dropped without a close (a for-each
     * over a range left by {@code break}) is unreachable, so it is let go instead of being told of
     * every later change of the transaction.
     */
    private List<WeakReference<Cursor>> cursors;
    /** The list of detached subtrees, once this transaction uses it. */
    private Garbage garbage;
    private BulkLoad load;
    /** This transaction's changes for the redo log; null if the store keeps none (or replays it). */
    private final RedoRecord redo;
    private RuntimeException poisoned;
    private boolean finished;
    /** Lets one operation run at a time, and a close take the transaction between two. */
    private final TxnGate gate = new TxnGate();
    /** Whether a retain named a revision: the commit then syncs its pages. */
    private boolean retained;
    /** Whether the named tree changed at all (also by resolving SELF records). */
    private boolean namedTreeChanged;
    /** Revisions whose names this transaction released. */
    private org.agrona.collections.LongArrayList releasedNames;

    /** The transaction's view of one tree; owned by the store and reused by later transactions. */
    static final class TreeState {
        final Tree tree;
        final TreeRoot root = new TreeRoot();
        long revision = -1;
        boolean existedBefore;
        boolean exists;
        boolean dirty;

        TreeState(Tree tree) {
            this.tree = tree;
        }

        void reset(long txnRevision, TreeRoot base) {
            revision = txnRevision;
            existedBefore = base != Revision.ABSENT;
            exists = existedBefore;
            dirty = false;
            if (existedBefore) {
                root.copyFrom(base);
            } else {
                root.clear();
            }
        }
    }

    /** What the single writer reuses from one transaction to the next. */
    static final class Scratch {
        final TreeRoot catalog = new TreeRoot();
        final byte[] catalogValue = new byte[TreeRoot.BYTES];
        TreeState[] states = new TreeState[8];
        /** Finds whether a range to delete holds any key. */
        final TreeCursor probe = new TreeCursor();
        /** Created on first use. */
        Garbage garbage;
    }

    WriteTxn(Store store, Revision base, WriterState writer, TreeEditor editor, Scratch scratch, Committer committer,
            Runnable onEnd) {
        super(store);
        this.committer = committer;
        this.onEnd = onEnd;
        this.base = base;
        this.revision = base.revision + 1;
        this.writer = writer;
        this.pages = writer.txnPages;
        this.editor = editor;
        this.scratch = scratch;
        this.catalog = scratch.catalog;
        catalog.copyFrom(base.catalog);
        pages.begin(revision, base.reader(store.access()));
        this.redo = committer.beginRecord();
    }

    @Override
    public long revision() {
        return revision;
    }

    /** The writer's state this transaction's hold gave: a close that aborts it takes the hold over. */
    WriterState writerState() {
        return writer;
    }

    /** The revision this transaction started from. */
    public long baseRevision() {
        return base.revision;
    }

    @Override
    void checkUsable() {
        TxnGate.Refusal refused = gate.enter();
        if (refused == TxnGate.Refusal.REVOKED) {
            throw new ClosedException("write transaction of revision " + revision + " was aborted: store "
                    + store.describe() + " was closed");
        }
        if (refused != null) {
            throw new ClosedException("write transaction of revision " + revision + " has ended");
        }
        if (store.isClosed()) {
            gate.exit(finished);
            store.checkOpen();
        }
    }

    @Override
    void done() {
        gate.exit(finished);
    }

    /** Begins an operation that ends quietly if the transaction has ended ({@link #done()} only if true). */
    boolean tryEnter() {
        return gate.enter() == null;
    }

    @Override
    PageReader reader() {
        return pages;
    }

    @Override
    TreeRoot catalog() {
        return catalog;
    }

    @Override
    TreeRoot rootOf(Tree tree) {
        TreeState state = state(tree);
        refuseDuringLoad(state);
        return state.exists ? state.root : Revision.ABSENT;
    }

    /** A tree takes no other write, and is not read, while a bulk load into it is open. */
    private void refuseDuringLoad(TreeState state) {
        if (load != null && load.tree() == state.tree) {
            throw new IllegalStateException("a bulk load into '" + state.tree.name() + "' is open: close it first");
        }
    }

    /** The transaction's state of the tree; a handle of another Store object means the tree of its name. */
    private TreeState state(Tree handle) {
        Tree tree = store.own(handle);
        int id = tree.id();
        TreeState[] states = scratch.states;
        if (id >= states.length) {
            states = Arrays.copyOf(states, Math.max(id + 1, states.length * 2));
            scratch.states = states;
        }
        TreeState state = states[id];
        if (state == null) {
            state = new TreeState(tree);
            states[id] = state;
        }
        if (state.revision != revision) {
            state.reset(revision, store.rootOf(base, tree));
        }
        return state;
    }

    private TreeState existing(Tree tree) {
        TreeState state = state(tree);
        if (!state.exists) {
            throw new TreeNotFoundException("there is no tree '" + tree.name() + "': create it with"
                    + " createTreeIfAbsent (or createTree) first, in this transaction or an earlier one");
        }
        refuseDuringLoad(state);
        return state;
    }

    /**
     * Starts a sorted bulk load into {@code tree}, filling pages to {@code fill} (0 to 1; 1 for
     * read-mostly data, lower to leave room for later inserts). One load at a time.
     */
    public BulkLoad bulkLoad(Tree tree, double fill) {
        checkUsable();
        try {
            TreeState state = existing(tree);
            if (load != null) {
                throw new IllegalStateException("a bulk load into '" + load.tree().name() + "' is open");
            }
            changing();
            state.dirty = true;
            load = new BulkLoad(this, state.tree, editor.loader(pages, state.root, fill));
            if (redo != null) {
                redo.load(state.tree, fill);
            }
            return load;
        } finally {
            done();
        }
    }

    /** A sorted bulk load with pages filled completely. */
    public BulkLoad bulkLoad(Tree tree) {
        return bulkLoad(tree, 1.0);
    }

    void loadEnded(BulkLoad ended) {
        if (load == ended) {
            load = null;
            if (redo != null) {
                redo.loadEnd();
            }
        }
    }

    /** See {@link #redo}. */
    RedoRecord redo() {
        return redo;
    }

    /** After a failure that left a tree half-changed: the transaction may only be aborted. */
    void poison(RuntimeException cause) {
        if (poisoned == null) {
            poisoned = cause;
        }
    }

    /**
     * A write that failed part way (a full disk in the middle of a split, say) may have left its
     * tree half-changed: the transaction can only be aborted from now on. Returns the failure.
     */
    RuntimeException poisoned(RuntimeException failure) {
        // A growth of the file that found its channel closed fails the store, not only this transaction.
        RuntimeException reported = failure instanceof StorageException s ? committer.writeFailed(s) : failure;
        poison(reported);
        return reported;
    }

    private Error poisoned(Error failure) {
        poison(new IllegalStateException(failure));
        return failure;
    }

    private void changing() {
        lent.revoke();
        if (cursors != null) {
            for (int i = 0; i < cursors.size();) {
                Cursor c = cursors.get(i).get();
                if (c == null) {
                    dropCursor(i);
                } else {
                    c.beforeChange();
                    i++;
                }
            }
        }
    }

    /** Removes entry {@code i} of {@link #cursors} (their order does not matter). */
    private void dropCursor(int i) {
        int last = cursors.size() - 1;
        cursors.set(i, cursors.get(last));
        cursors.remove(last);
    }

    /** Cursors still registered (tests). */
    int registeredCursors() {
        return cursors == null ? 0 : cursors.size();
    }

    /** Whether the tree exists in this transaction (also while a bulk load into it is open). */
    @Override
    public boolean hasTree(Tree tree) {
        checkUsable();
        try {
            return state(tree).exists;
        } finally {
            done();
        }
    }

    /** Names of the trees, in order, with the trees this transaction created or dropped. */
    @Override
    public List<String> treeNames() {
        checkUsable();
        try {
            return namesWithChanges();
        } finally {
            done();
        }
    }

    private List<String> namesWithChanges() {
        List<String> names = super.treeNames();
        boolean changed = false;
        for (TreeState state : scratch.states) {
            if (state == null || state.revision != revision || state.exists == state.existedBefore
                    || state.tree == store.garbageTree() || state.tree == store.namedTree()) {
                continue;
            }
            changed = true;
            if (state.exists) {
                names.add(state.tree.name());
            } else {
                names.remove(state.tree.name());
            }
        }
        if (changed) {
            names.sort((a, b) -> Keys.compare(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        }
        return names;
    }

    /** Creates an empty tree; it exists for readers once the transaction commits. */
    public Tree createTree(String name) {
        checkUsable();
        try {
            Tree tree = store.tree(name);
            TreeState state = state(tree);
            if (state.exists) {
                throw new TreeExistsException("tree '" + name + "' exists already");
            }
            changing();
            state.root.clear();
            state.exists = true;
            state.dirty = true;
            if (redo != null) {
                redo.createTree(tree);
            }
            return tree;
        } finally {
            done();
        }
    }

    /** The tree named {@code name}, created if it does not exist. */
    public Tree createTreeIfAbsent(String name) {
        checkUsable();
        try {
            Tree tree = store.tree(name);
            return state(tree).exists ? tree : createTree(name);
        } finally {
            done();
        }
    }

    /**
     * Drops a tree; returns false if there was no such tree. O(1): its pages are freed over the
     * following commits.
     */
    public boolean dropTree(Tree tree) {
        checkUsable();
        try {
            TreeState state = state(tree);
            if (!state.exists) {
                return false;
            }
            // Its loader would go on appending to pages the drop hands to the garbage list.
            refuseDuringLoad(state);
            changing();
            try {
                editor.detachAll(state.root, garbage());
            } catch (RuntimeException e) {
                throw poisoned(e);
            } catch (Error e) {
                throw poisoned(e);
            }
            state.exists = false;
            state.dirty = true;
            if (redo != null) {
                redo.dropTree(state.tree);
            }
            return true;
        } finally {
            done();
        }
    }

    /**
     * Deletes every key in [from, to) and returns how many there were; {@code from == to} deletes
     * nothing, and a null bound is open ({@code deleteRange(tree, from, null)} deletes {@code from}
     * and every key after it). The work is proportional to the tree's depth and the two boundary
     * pages, not to the keys deleted: whole subtrees in between are cut off and their pages freed
     * over the following commits. Afterwards reads cost what they cost on a tree that never held the
     * keys.
     */
    public long deleteRange(Tree tree, byte[] from, byte[] to) {
        checkUsable();
        try {
            if (from == null) {
                from = NO_KEY;
            }
            if (to == null) {
                return deleteFrom(tree, from);
            }
            checkKey(from.length);
            checkKey(to.length);
            int order = Keys.compare(from, to);
            if (order > 0) {
                throw new IllegalArgumentException("range start sorts after its end");
            }
            TreeState state = existing(tree);
            // An empty range changes nothing.
            if (order == 0 || !anyKeyIn(state.root, from, to)) {
                return 0;
            }
            changing();
            state.dirty = true;
            try {
                long deleted = editor.deleteRange(pages, state.root, from, BYTE_BASE, from.length, to, BYTE_BASE, to.length,
                        garbage());
                if (redo != null) {
                    redo.deleteRange(state.tree, from, to);
                }
                return deleted;
            } catch (RuntimeException e) {
                throw poisoned(e);
            } catch (Error e) {
                throw poisoned(e);
            }
        } finally {
            done();
        }
    }

    /** The smallest key there can be: the start of a range open below. */
    private static final byte[] NO_KEY = new byte[0];

    /** Deletes {@code from} and every key after it: up to the last key, and that key. */
    private long deleteFrom(Tree tree, byte[] from) {
        checkKey(from.length);
        TreeCursor c = scratch.probe.reset(pages, existing(tree).root);
        if (!c.last() || Keys.compare(null, c.keyAddress(), c.keyLength(), from, BYTE_BASE, from.length) < 0) {
            return 0;
        }
        byte[] last = new byte[c.keyLength()];
        c.key().getBytes(0, last);
        return deleteRange(tree, from, last) + (delete(tree, last) ? 1 : 0);
    }

    /**
     * Whether a key lies in {@code [from, to)}: one seek. (Comparing the two keys' ranks would read
     * the count of every child left of both paths, a cache miss each.)
     */
    private boolean anyKeyIn(TreeRoot root, byte[] from, byte[] to) {
        TreeCursor c = scratch.probe.reset(pages, root);
        return c.seek(from, BYTE_BASE, from.length)
                && Keys.compare(null, c.keyAddress(), c.keyLength(), to, BYTE_BASE, to.length) < 0;
    }

    /** The list of detached subtrees, created on first use. */
    private Garbage garbage() {
        if (garbage == null) {
            if (scratch.garbage == null) {
                scratch.garbage = new Garbage(editor, pages);
            }
            garbage = scratch.garbage.begin(this::garbageRoot);
        }
        return garbage;
    }

    /** The garbage tree's root in this transaction, created if needed; it will be written at commit. */
    private TreeRoot garbageRoot() {
        TreeState state = state(store.garbageTree());
        if (!state.exists) {
            state.exists = true;
            state.root.clear();
        }
        state.dirty = true;
        return state.root;
    }

    /**
     * Keeps the revision this transaction commits under {@code name} until {@link Store#release}:
     * across close, reopen and crashes, readable with {@link Store#beginRead(String)}, and none of
     * its pages reused meanwhile. The commit then syncs its pages whatever durability it is given
     * (a page only a named revision reaches is never written by a later checkpoint). A name is 1
     * to {@value NamedRevisions#MAX_NAME_BYTES} UTF-8 bytes.
     *
     * @throws io.mvbt.NamedRevisionExistsException if a revision is kept under {@code name}
     */
    public void retain(String name) {
        byte[] key = NamedRevisions.key(name);
        checkUsable();
        try {
            putName(name, key, NamedRevisions.self(revision));
            retained = true;
        } finally {
            done();
        }
    }

    /**
     * Keeps the base revision (the newest, which the caller made durable) under {@code name};
     * returns its number.
     */
    long retainBase(String name, long sealedThrough) {
        byte[] key = NamedRevisions.key(name);
        checkUsable();
        try {
            putName(name, key, NamedRevisions.encode(base, sealedThrough));
            store.named().stage(base.revision);
            return base.revision;
        } finally {
            done();
        }
    }

    private void putName(String name, byte[] key, byte[] record) {
        TreeState state = namedState();
        if (NamedRevisions.findIn(pages, state.root, key)) {
            throw new io.mvbt.NamedRevisionExistsException("a revision is already kept under the name '" + name
                    + "' in store " + store.describe() + ": release it first");
        }
        changing();
        try {
            editor.put(pages, state.root, key, BYTE_BASE, key.length, record, BYTE_BASE, record.length);
        } catch (RuntimeException e) {
            throw poisoned(e);
        } catch (Error e) {
            throw poisoned(e);
        }
        userChangedNames();
    }

    /**
     * Lets go of the revision kept under {@code name} once this transaction commits: its pages that
     * nothing else reaches become free space again.
     *
     * @throws io.mvbt.NamedRevisionNotFoundException if no revision is kept under {@code name}
     */
    public void release(String name) {
        byte[] key = NamedRevisions.key(name);
        checkUsable();
        try {
            TreeState state = namedState();
            if (!NamedRevisions.findIn(pages, state.root, key)) {
                throw new io.mvbt.NamedRevisionNotFoundException("no revision is kept under the name '" + name
                        + "' in store " + store.describe());
            }
            long named = NamedRevisions.revisionAt(pages, state.root, key);
            changing();
            try {
                editor.delete(pages, state.root, key, BYTE_BASE, key.length);
            } catch (RuntimeException e) {
                throw poisoned(e);
            } catch (Error e) {
                throw poisoned(e);
            }
            if (releasedNames == null) {
                releasedNames = new org.agrona.collections.LongArrayList();
            }
            releasedNames.addLong(named);
            userChangedNames();
        } finally {
            done();
        }
    }

    /** A redo record cannot say what a name keeps: this commit is made durable by its pages. */
    private void userChangedNames() {
        namedTreeChanged = true;
        if (redo != null) {
            redo.unrecordable();
        }
    }

    /** The named tree's state in this transaction, created if needed; it will be written at commit. */
    private TreeState namedState() {
        TreeState state = state(store.namedTree());
        if (!state.exists) {
            state.exists = true;
            state.root.clear();
        }
        state.dirty = true;
        return state;
    }

    /**
     * Writes what the base's SELF records name (see {@link NamedRevisions}): the base's roots, as
     * the revision each record names, before this commit's catalog replaces the base's.
     */
    private void resolveSelfRecords() {
        TreeState state = namedState();
        TreeCursor c = new TreeCursor();
        java.util.List<byte[]> keys = new java.util.ArrayList<>();
        java.util.List<byte[]> records = new java.util.ArrayList<>();
        c.reset(pages, state.root);
        for (boolean ok = c.first(); ok; ok = c.next()) {
            String name = c.key().getStringWithoutLengthUtf8(0, c.keyLength());
            NamedRevisions.Entry e = NamedRevisions.decode(name, c.value(), base);
            if (e.self() && e.revision().revision != revision) {
                keys.add(name.getBytes(StandardCharsets.UTF_8));
                records.add(NamedRevisions.encode(e.revision(), store.sealedThroughFor(e.revision())));
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            byte[] key = keys.get(i);
            byte[] record = records.get(i);
            editor.put(pages, state.root, key, BYTE_BASE, key.length, record, BYTE_BASE, record.length);
        }
        namedTreeChanged = true;
    }

    /** Pages of detached subtrees freed per commit. */
    private static final long RECLAIM_PER_COMMIT = 64;

    /** Stores {@code value} under {@code key}, replacing any value; returns true if the key is new. */
    public boolean put(Tree tree, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key must not be null");
        Objects.requireNonNull(value, "value must not be null");
        return put(tree, key, BYTE_BASE, key.length, value, BYTE_BASE, value.length);
    }

    /**
     * Stores the bytes of {@code value} under the bytes of {@code key}, replacing any value; returns
     * true if the key is new. Both buffers are read during the call only (and kept reachable until it
     * returns, so direct memory cannot be freed under it); the store keeps copies.
     */
    public boolean put(Tree tree, DirectBuffer key, DirectBuffer value) {
        try {
            return put(tree, key.byteArray(), key.addressOffset(), key.capacity(), value.byteArray(),
                    value.addressOffset(), value.capacity());
        } finally {
            Reference.reachabilityFence(key);
            Reference.reachabilityFence(value);
        }
    }

    private boolean put(Tree tree, Object keyBase, long keyOff, int keyLen, Object valueBase, long valueOff,
            int valueLen) {
        checkUsable();
        try {
            checkKey(keyLen);
            TreeState state = existing(tree);
            changing();
            state.dirty = true;
            try {
                boolean added = editor.put(pages, state.root, keyBase, keyOff, keyLen, valueBase, valueOff, valueLen);
                if (redo != null) {
                    redo.put(state.tree, keyBase, keyOff, keyLen, valueBase, valueOff, valueLen);
                }
                return added;
            } catch (RuntimeException e) {
                throw poisoned(e);
            } catch (Error e) {
                throw poisoned(e);
            }
        } finally {
            done();
        }
    }

    /** Deletes {@code key}; returns true if it was there. */
    public boolean delete(Tree tree, byte[] key) {
        Objects.requireNonNull(key, "key must not be null");
        return delete(tree, key, BYTE_BASE, key.length);
    }

    /** Deletes the key in {@code key}; returns true if it was there. The buffer is read during the call only. */
    public boolean delete(Tree tree, DirectBuffer key) {
        try {
            return delete(tree, key.byteArray(), key.addressOffset(), key.capacity());
        } finally {
            Reference.reachabilityFence(key);
        }
    }

    private boolean delete(Tree tree, Object keyBase, long keyOff, int keyLen) {
        checkUsable();
        try {
            checkKey(keyLen);
            TreeState state = existing(tree);
            changing();
            try {
                boolean deleted = editor.delete(pages, state.root, keyBase, keyOff, keyLen);
                state.dirty |= deleted;
                if (deleted && redo != null) {
                    redo.delete(state.tree, keyBase, keyOff, keyLen);
                }
                return deleted;
            } catch (RuntimeException e) {
                throw poisoned(e);
            } catch (Error e) {
                throw poisoned(e);
            }
        } finally {
            done();
        }
    }

    /**
     * Frees every subtree that drops and range deletes detached (a store compacting at rest), and
     * marks in {@code movable} every page of an earlier revision that {@link #relocate} with bound
     * {@code keepThrough} may move or copy: those of every tree, the catalog and the free map written
     * after it. Returns how many of them are branch pages, which it may copy without moving them.
     */
    long freeDetachedAndFindMovable(long keepThrough, PageSet movable) {
        checkUsable();
        try {
            changing();
            try {
                if (store.rootOf(base, store.garbageTree()).entries > 0) {
                    garbage().reclaim(Long.MAX_VALUE);
                }
                long[] branches = new long[1];
                TreeEditor.Movable mark = (pageNo, written, count, branch) -> {
                    // Pages of this transaction change in place.
                    if (written != revision) {
                        for (long p = pageNo; p < pageNo + count; p++) {
                            movable.set(p);
                        }
                        branches[0] += branch ? 1 : 0;
                    }
                };
                TreeEditor.movablePages(pages, catalog, keepThrough, mark);
                for (Catalog.Entry e : Catalog.list(pages, catalog, base.fresh, true)) {
                    TreeEditor.movablePages(pages, rootOf(handleOf(e)), keepThrough, mark);
                }
                RevisionWalker.freeMapOf(base, pages.pageSize()).walk(pages, keepThrough,
                        (pageNo, written, type, address) -> movable.set(pageNo));
                return branches[0];
            } catch (RuntimeException e) {
                throw poisoned(e);
            } catch (Error e) {
                throw poisoned(e);
            }
        } finally {
            done();
        }
    }

    /**
     * Moves every page numbered {@code limit} or higher and written after {@code keepThrough} into
     * the lowest free pages, so that the file can end below it (a store compacting at rest): the
     * pages of every tree, the catalog's, and at commit the free map's. Pages written at or before
     * {@code keepThrough} stay where they are: a held older revision (a named one, say) reaches them
     * too. Returns the pages moved.
     */
    long relocate(long limit, long keepThrough) {
        checkUsable();
        try {
            changing();
            try {
                long moved = 0;
                for (Catalog.Entry e : Catalog.list(pages, catalog, base.fresh, true)) {
                    TreeState state = state(handleOf(e));
                    long m = state.exists ? editor.relocate(pages, state.root, limit, keepThrough) : 0;
                    if (m > 0) {
                        state.dirty = true;
                        moved += m;
                    }
                }
                moved += editor.relocate(pages, catalog, limit, keepThrough);
                committer.relocateFreeMap(writer, limit, keepThrough);
                return moved;
            } catch (RuntimeException e) {
                throw poisoned(e);
            } catch (Error e) {
                throw poisoned(e);
            }
        } finally {
            done();
        }
    }

    /** The handle of a tree the catalog lists, internal ones included. */
    private Tree handleOf(Catalog.Entry e) {
        if (e.name.equals(NamedRevisions.NAME)) {
            return store.namedTree();
        }
        return e.name.equals(Garbage.NAME) ? store.garbageTree() : store.tree(e.name);
    }

    @Override
    public Cursor cursor(Tree tree) {
        checkUsable();
        try {
            Cursor cursor = new Cursor(this, tree, this);
            if (cursors == null) {
                cursors = new ArrayList<>();
            }
            cursors.add(new WeakReference<>(cursor));
            return cursor;
        } finally {
            done();
        }
    }

    void forget(Cursor cursor) {
        // Once the transaction has ended its cursors are closed (by a close in another thread, maybe).
        if (!tryEnter()) {
            return;
        }
        try {
            for (int i = 0; i < cursors.size(); i++) {
                if (cursors.get(i).get() == cursor) {
                    dropCursor(i);
                    return;
                }
            }
        } finally {
            done();
        }
    }

    /** Commits with the store's default durability. */
    public void commit() {
        commit(store.options().durability());
    }

    /**
     * Publishes the transaction's writes as one new revision, durable as {@code durability} says.
     * If a write of this transaction failed, the commit refuses (IllegalStateException): abort.
     */
    public void commit(Durability durability) {
        checkUsable();
        try {
            if (poisoned != null) {
                throw new IllegalStateException("the transaction failed (" + poisoned.getMessage()
                        + ") and can only be aborted", poisoned);
            }
            if (load != null) {
                load.close();
            }
            boolean done = false;
            try {
                if (store.named().selfRecords()) {
                    resolveSelfRecords();
                }
                reclaimDetached();
                TreeRoot[] roots = Arrays.copyOf(base.roots, Math.max(base.roots.length, store.treeCount()));
                FreshRoots fresh = foldRoots(roots);
                if (store.options().checked()) {
                    check();
                }
                committer.commit(writer, revision, catalog, fresh, roots, retained ? Durability.SYNC : durability, redo);
                done = true;
                if (namedTreeChanged) {
                    store.namesCommitted(revision, releasedNames);
                }
            } catch (StorageException e) {
                throw committer.writeFailed(e);
            } finally {
                store.named().stage(-1);
                finish(!done);
            }
        } finally {
            done();
        }
    }

    /** Frees a few more pages of the detached subtrees, if any wait. */
    private void reclaimDetached() {
        if ((garbage != null && garbage.changed()) || store.rootOf(base, store.garbageTree()).entries > 0) {
            garbage().reclaim(RECLAIM_PER_COMMIT);
        }
    }

    /**
     * Puts the new root of every tree this transaction changed into {@code roots}, and returns the
     * fresh roots the meta carries; when they cannot, they go into the catalog.
     */
    private FreshRoots foldRoots(TreeRoot[] roots) {
        for (TreeState state : scratch.states) {
            if (changedHere(state)) {
                roots[state.tree.id()] = state.exists ? state.root.copy() : Revision.ABSENT;
            }
        }
        FreshRoots fresh = freshRoots(roots);
        if (fresh == null) {
            foldIntoCatalog();
            return FreshRoots.NONE;
        }
        return fresh;
    }

    /**
     * The base's fresh roots with the new roots of the trees this transaction changed, or null if
     * they must go to the catalog: a tree was created or dropped, or they do not fit in the meta.
     * The roots are the published copies in {@code roots}.
     */
    private FreshRoots freshRoots(TreeRoot[] roots) {
        FreshRoots fresh = base.fresh;
        for (TreeState state : scratch.states) {
            if (!changedHere(state)) {
                continue;
            }
            if (!state.exists || !state.existedBefore) {
                return null;
            }
            fresh = fresh.with(state.tree.key(), roots[state.tree.id()]);
            if (fresh == null) {
                return null;
            }
        }
        return fresh;
    }

    /** Whether this transaction changed the tree of {@code state} (states of other transactions linger). */
    private boolean changedHere(TreeState state) {
        return state != null && state.revision == revision && state.dirty;
    }

    /** Writes every fresh root of the base and every change of this transaction into the catalog. */
    private void foldIntoCatalog() {
        for (int i = 0; i < base.fresh.size(); i++) {
            Catalog.put(editor, pages, catalog, base.fresh.key(i), base.fresh.root(i), scratch.catalogValue);
        }
        for (TreeState state : scratch.states) {
            if (!changedHere(state)) {
                continue;
            }
            if (state.exists) {
                Catalog.put(editor, pages, catalog, state.tree.key(), state.root, scratch.catalogValue);
            } else if (state.existedBefore) {
                Catalog.delete(editor, pages, catalog, state.tree.key());
            }
        }
    }

    /** The checked mode: refuses to publish a revision whose written pages break an invariant. */
    private void check() {
        CommitCheck check = new CommitCheck(revision, pages, editor.limits(), writer.space);
        check.tree("catalog", catalog);
        for (TreeState state : scratch.states) {
            if (changedHere(state) && state.exists) {
                check.tree("tree '" + state.tree.name().replace("\0", "\\0") + "'", state.root);
                if (state.tree == store.garbageTree()) {
                    check.detached(state.root);
                }
            }
        }
        check.noLeaks();
    }

    /** Throws away everything the transaction wrote. */
    public void abort() {
        // Nothing to do once it committed or aborted, or a close aborted it.
        if (!tryEnter()) {
            return;
        }
        try {
            if (!finished) {
                finish(true);
            }
        } finally {
            done();
        }
    }

    /**
     * A close takes the transaction: waits for the operation running in the owner's thread, then
     * aborts it, keeping its hold on the writer for the close. False if it committed or aborted first.
     */
    boolean abortForClose() {
        if (!gate.revoke()) {
            return false;
        }
        end(true);
        return true;
    }

    private void finish(boolean abort) {
        end(abort);
        onEnd.run();
    }

    /** Ends the transaction, all but giving back its hold on the writer. */
    private void end(boolean abort) {
        finished = true;
        lent.revoke();
        if (cursors != null) {
            for (WeakReference<Cursor> ref : new ArrayList<>(cursors)) {
                Cursor c = ref.get();
                if (c != null) {
                    c.close();
                }
            }
        }
        // Transaction state reused by the next writer must not be mistaken for its own.
        for (TreeState state : scratch.states) {
            if (state != null && state.revision == revision) {
                state.revision = -1;
            }
        }
        if (abort) {
            committer.abort(writer);
        }
    }

    /** Whether the calling thread is inside an operation of this transaction (user code it calls). */
    boolean runsInCaller() {
        return gate.runsInCaller();
    }

    /** Whether a close of the store aborted the transaction (its commit then throws ClosedException). */
    boolean abortedByClose() {
        return gate.revoked();
    }

    /** Whether the transaction has committed or aborted (a close of its store aborts it). */
    public boolean isFinished() {
        return finished || gate.revoked();
    }

    @Override
    public void close() {
        abort();
    }
}
