// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.agrona.collections.LongArrayList;

import io.mvbt.NamedRevisionNotFoundException;
import io.mvbt.ReadOnlyStoreException;
import io.mvbt.btree.TreeRoot;

/**
 * A durable consumer position over a store's commits: each {@link #poll} reports what changed from
 * the position to the newest revision, then moves the position there. It is a <em>state</em> feed:
 * a batch holds the net change of each key between two revisions (a key put and deleted between two
 * polls is not reported; a key changed twice is reported once, with its latest value), which is all
 * a replica needs to hold what the store holds, and it costs what changed, not what the store holds
 * ({@link Snapshot#diff}).
 *
 * <p>The position is a named revision, {@code feed:NAME@REVISION} (beside it, while a batch is not
 * taken in, the batch's end, and {@code feed:NAME@begin} for a first batch), listed by
 * {@link Store#namedRevisions()}: it survives close, {@code kill -9} and power cuts, and it keeps the
 * pages of that revision from being reused (a feed nobody polls pins more and more of the file) until
 * the feed moves on or is {@link #drop dropped}. A poll names the newest revision first (a commit of
 * its own, synced, that changes no tree), reports the changes up to it, calls
 * {@link FeedVisitor#reached}, and only then releases the old position: a consumer that dies in
 * between is handed the same batch again, from the same revision to the same revision.
 *
 * <p>Moving the position needs the store's writer; in a read-only store (another process writing)
 * {@link #peek} reports the changes since the position without moving it. One consumer at a time
 * per feed.
 */
public final class ChangeFeed {
    /** The position of a feed that has reported nothing: its first batch is every tree and entry. */
    public static final long BEGINNING = -1;
    /** What every feed's named revisions start with. */
    public static final String NAME_PREFIX = "feed:";

    /** Longest feed name, in UTF-8 bytes: a mark's name, with its prefix and 19 digits, is a revision name. */
    public static final int MAX_NAME_BYTES = NamedRevisions.MAX_NAME_BYTES - NAME_PREFIX.length() - 1 - 19;

    private final Store store;
    private final String name;
    /** {@code feed:NAME@}: a mark is this and its revision's decimal digits. */
    private final String markPrefix;
    /**
     * Names a feed's first batch while it is not taken in, beside its numeric mark: without it, that
     * mark alone would read as a position already reached.
     */
    private final String beginMark;

    ChangeFeed(Store store, String name) {
        java.util.Objects.requireNonNull(name, "feed name must not be null");
        this.store = store;
        this.name = name;
        this.markPrefix = NAME_PREFIX + name + "@";
        this.beginMark = markPrefix + "begin";
        int length = name.getBytes(StandardCharsets.UTF_8).length;
        if (length == 0 || length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("a feed name is 1 to " + MAX_NAME_BYTES + " UTF-8 bytes: '" + name
                    + "' has " + length);
        }
        NamedRevisions.key(markPrefix + 0);
    }

    public String name() {
        return name;
    }

    /** The revision the feed has reported up to, or {@link #BEGINNING}. */
    public long position() {
        long[] marks = marks();
        return marks.length == 0 ? BEGINNING : marks[0];
    }

    /**
     * Reports what changed from the position to the newest revision, calls
     * {@link FeedVisitor#reached}, and moves the position there; returns the revision reached. If
     * nothing changed since the position, reports nothing, commits nothing and returns the position.
     * If the last poll did not finish (its visitor threw, the process died), reports that batch
     * again instead, as it was. The visitor runs without holding the writer.
     *
     * @throws ReadOnlyStoreException in a read-only store: only the writer moves a position
     */
    public long poll(FeedVisitor visitor) {
        java.util.Objects.requireNonNull(visitor, "visitor must not be null");
        if (store.isReadOnly()) {
            throw new ReadOnlyStoreException("moving the position of feed '" + name + "' needs the writer of "
                    + store.describe() + ", which this read-only store is not; peek reads the changes without moving");
        }
        long[] marks = marks();
        long from = marks.length == 0 ? BEGINNING : marks[0];
        long to;
        if (marks.length > 1) {
            to = marks[marks.length - 1];
        } else {
            if (from != BEGINNING && unchangedSince(from)) {
                return from;
            }
            to = mark(from == BEGINNING);
        }
        try (Snapshot target = store.beginRead(markPrefix + to)) {
            report(from == BEGINNING ? null : markPrefix + from, target, visitor);
        }
        visitor.reached(from, to);
        releaseBelow(to);
        return to;
    }

    /**
     * Reports what changed from the position to the newest revision without moving the position;
     * returns the newest revision. Works in a read-only store too.
     */
    public long peek(DiffVisitor visitor) {
        java.util.Objects.requireNonNull(visitor, "visitor must not be null");
        try (Snapshot newest = store.beginRead()) {
            long from = position();
            report(from == BEGINNING ? null : markPrefix + from, newest, visitor);
            return newest.revision();
        }
    }

    /** Releases the feed's position, so its pages may be reused; the feed starts again from the beginning. */
    public void drop() {
        long[] marks = marks();
        if (marks.length > 0) {
            store.update(tx -> {
                for (long m : marks) {
                    tx.release(nameOf(m));
                }
            });
        }
    }

    /**
     * The revisions the feed keeps names for, ascending: its position, then a batch not yet taken in;
     * {@link #BEGINNING} first while the first batch is not taken in.
     */
    private long[] marks() {
        LongArrayList out = new LongArrayList();
        try (Snapshot newest = store.beginRead()) {
            for (NamedRevisions.Entry e : NamedRevisions.list(newest.reader(), newest.rev())) {
                String n = e.name();
                if (n.equals(beginMark)) {
                    out.addLong(BEGINNING);
                } else if (n.startsWith(markPrefix) && isDigits(n, markPrefix.length())) {
                    out.addLong(e.revision().revision);
                }
            }
        }
        long[] marks = out.toLongArray();
        Arrays.sort(marks);
        return marks;
    }

    private static boolean isDigits(String s, int from) {
        if (from == s.length()) {
            return false;
        }
        for (int i = from; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Names the revision of a commit that changes no tree, so it holds what the newest held; returns it. */
    private long mark(boolean first) {
        try (WriteTxn tx = store.beginWrite()) {
            long revision = tx.revision();
            tx.retain(markPrefix + revision);
            if (first) {
                tx.retain(beginMark);
            }
            tx.commit();
            return revision;
        }
    }

    /** Lets go of every mark below {@code to} (the beginning's too), in one commit. */
    private void releaseBelow(long to) {
        long[] marks = marks();
        if (marks.length > 0 && marks[0] < to) {
            store.update(tx -> {
                for (long m : marks) {
                    if (m < to) {
                        tx.release(nameOf(m));
                    }
                }
            });
        }
    }

    private String nameOf(long mark) {
        return mark == BEGINNING ? beginMark : markPrefix + mark;
    }

    /**
     * Whether every tree of the newest revision has the root it had at mark {@code from}: then only
     * names changed (another feed's poll, say), and a poll that committed would make work forever.
     */
    private boolean unchangedSince(long from) {
        try (Snapshot at = store.beginRead(markPrefix + from); Snapshot newest = store.beginRead()) {
            List<Catalog.Entry> a = Catalog.list(at.reader(), at.rev().catalog, at.rev().fresh, false);
            List<Catalog.Entry> b = Catalog.list(newest.reader(), newest.rev().catalog, newest.rev().fresh, false);
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                TreeRoot x = a.get(i).root;
                TreeRoot y = b.get(i).root;
                if (!a.get(i).name.equals(b.get(i).name) || x.page != y.page || x.revision != y.revision
                        || x.entries != y.entries) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Reports the changes from the revision named {@code fromName} (null: the beginning) to {@code target}. */
    private void report(String fromName, Snapshot target, DiffVisitor visitor) {
        if (fromName == null) {
            fromNothing(target, visitor);
            return;
        }
        try (Snapshot from = store.beginRead(fromName)) {
            from.diff(target, visitor);
        }
    }

    /** Every tree of {@code target} as created and its entries as added. */
    static DiffStats fromNothing(Snapshot target, DiffVisitor visitor) {
        target.checkUsable();
        try {
            return new RevisionDiff(target, target).all(new TreeRoot(), FreshRoots.NONE, target.rev().catalog,
                    target.rev().fresh, visitor);
        } finally {
            target.done();
        }
    }

    /** {@link Store#changesSince(long, DiffVisitor)}. */
    static long changesSince(Store store, long revision, DiffVisitor visitor) {
        java.util.Objects.requireNonNull(visitor, "visitor must not be null");
        try (Snapshot newest = store.beginRead()) {
            if (revision == BEGINNING) {
                fromNothing(newest, visitor);
                return newest.revision();
            }
            if (revision < 0 || revision > newest.revision()) {
                throw new IllegalArgumentException("revision " + revision + " is not a revision of store "
                        + store.describe() + ", whose newest is " + newest.revision());
            }
            if (revision == newest.revision()) {
                return revision;
            }
            Snapshot from;
            try {
                from = store.beginRead(revision);
            } catch (NamedRevisionNotFoundException e) {
                throw new NamedRevisionNotFoundException(e.getMessage() + "; to read what changed since a revision,"
                        + " keep it readable: retain it under a name (Store.retain, WriteTxn.retain) or poll a"
                        + " ChangeFeed, whose position is one");
            }
            try (from) {
                from.diff(newest, visitor);
            }
            return newest.revision();
        }
    }

    /** {@link Store#changesSince(String, DiffVisitor)}. */
    static long changesSince(Store store, String name, DiffVisitor visitor) {
        java.util.Objects.requireNonNull(visitor, "visitor must not be null");
        try (Snapshot from = store.beginRead(name); Snapshot newest = store.beginRead()) {
            from.diff(newest, visitor);
            return newest.revision();
        }
    }
}
