// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import org.roaringbitmap.longlong.PeekableLongIterator;

import io.mvbt.ClosedException;
import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Tree;

/**
 * Walks a materialized {@link CandidateSet} in id order, both ways, and fetches each entry from the
 * master tree of the same view (snapshot), so entries that later commits deleted are still there
 * and no half-applied write is ever seen. Positions are those of a virtual list view: 0 to
 * {@link #count()} - 1; before the first and after the last the cursor stands on nothing.
 *
 * <p>{@link #seek}, {@link #seekPosition} and {@link #skip} use the set's rank and select, not a
 * walk; {@link #next} and {@link #prev} step an iterator. Entries are fetched only when asked for.
 * Not thread-safe; it does not own its view.
 */
public final class CandidateCursor implements AutoCloseable {
    private final ReadView view;
    private final Tree master;
    private final CandidateSet ids;
    private final long count;
    /** -1 before the first id, count after the last. */
    private long position = -1;
    private long id;
    /** Iterators whose next id is the one after (forward) or before (backward) the current one. */
    private PeekableLongIterator forward;
    private PeekableLongIterator backward;
    private boolean closed;

    public CandidateCursor(ReadView view, Tree master, CandidateSet ids) {
        this.view = view;
        this.master = master;
        this.ids = ids;
        this.count = ids.size();
    }

    /** Ids in the set: the virtual list's size. */
    public long count() {
        return count;
    }

    /** Position of the current id (0-based), -1 before the first, {@link #count()} after the last. */
    public long position() {
        return position;
    }

    public boolean isPositioned() {
        return position >= 0 && position < count;
    }

    /** The current id. */
    public long id() {
        requirePositioned();
        return id;
    }

    /** The current entry, fetched from the master tree of the cursor's view. */
    public byte[] entry() {
        requirePositioned();
        byte[] entry = view.get(master, IndexKey.idKey(id));
        if (entry == null) {
            throw new MissingEntryException(id, master, view.revision());
        }
        return entry;
    }

    public boolean first() {
        return seekPosition(0);
    }

    public boolean last() {
        return seekPosition(count - 1);
    }

    public boolean next() {
        checkOpen();
        if (position >= count - 1) {
            position = count;
            forward = backward = null;
            return false;
        }
        if (forward == null) {
            forward = position < 0 ? ids.iterator() : ids.iteratorFrom(id + 1);
        }
        id = forward.next();
        position++;
        backward = null;
        return true;
    }

    public boolean prev() {
        checkOpen();
        if (position <= 0) {
            position = -1;
            forward = backward = null;
            return false;
        }
        if (backward == null) {
            backward = position >= count ? ids.reverseIterator() : ids.reverseIteratorFrom(id - 1);
        }
        id = backward.next();
        position--;
        forward = null;
        return true;
    }

    /** Moves to the first id {@code >= target}; false (after the last) if there is none. */
    public boolean seek(long target) {
        return seekPosition(ids.rankBelow(target));
    }

    /** Moves to the id at {@code position}; outside [0, count) it stands before the first or after the last. */
    public boolean seekPosition(long target) {
        checkOpen();
        forward = backward = null;
        if (target < 0) {
            position = -1;
            return false;
        }
        if (target >= count) {
            position = count;
            return false;
        }
        position = target;
        id = ids.select(target);
        return true;
    }

    /** Moves {@code n} ids forward (negative: backward). */
    public boolean skip(long n) {
        checkOpen();
        long target = position + n;
        if (n > 0 && target < position) {
            target = count; // overflow
        } else if (n < 0 && target > position) {
            target = -1; // underflow
        }
        return seekPosition(Math.max(-1, Math.min(count, target)));
    }

    private void requirePositioned() {
        checkOpen();
        if (!isPositioned()) {
            throw new IllegalStateException("the cursor stands " + (position < 0 ? "before the first" : "after the last")
                    + " of " + count + " candidates");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new ClosedException("candidate cursor over '" + master.name() + "' is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
