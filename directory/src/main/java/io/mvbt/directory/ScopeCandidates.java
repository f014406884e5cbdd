// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

import org.agrona.DirectBuffer;
import org.roaringbitmap.longlong.PeekableLongIterator;

import io.mvbt.cursor.CandidateScope;
import io.mvbt.cursor.CandidateSet;
import io.mvbt.cursor.IndexKey;
import io.mvbt.cursor.Range;
import io.mvbt.cursor.RangeCursor;
import io.mvbt.revisions.ReadView;

/**
 * The entries a search's scope covers, on the search's snapshot. Estimates come from the parent
 * tree (children of an entry are one key range, counted in O(log n)) and the descendant counts.
 * Materializing a subtree walks the parent tree down from the base, skipping the children lookup of
 * entries with no descendants; restricting a few candidates walks each one up instead, remembering
 * the ancestors already decided.
 */
final class ScopeCandidates implements CandidateScope {
    private final ReadView view;
    private final DirectoryTrees trees;
    private final long base;
    private final SearchScope scope;
    private final Dn baseDn;

    ScopeCandidates(ReadView view, DirectoryTrees trees, long base, Dn baseDn, SearchScope scope) {
        this.view = view;
        this.trees = trees;
        this.base = base;
        this.baseDn = baseDn;
        this.scope = scope;
    }

    private boolean wholeDirectory() {
        return scope == SearchScope.SUBTREE && EntryCodec.parent(trees.record(view, base)) == 0;
    }

    private Range children(long id) {
        byte[] prefix = IndexKey.idKey(id);
        return Range.over(view, trees.parent).from(prefix).toExclusive(IndexKey.prefixEnd(prefix));
    }

    @Override
    public long estimate() {
        return switch (scope) {
            case OBJECT -> 1;
            case ONELEVEL -> children(base).count();
            case SUBTREE -> 1 + trees.descendantsOf(view, base);
        };
    }

    @Override
    public CandidateSet materialize() {
        CandidateSet.Builder ids = CandidateSet.builder();
        switch (scope) {
            case OBJECT -> ids.add(base);
            case ONELEVEL -> addChildren(base, ids, null);
            case SUBTREE -> {
                if (wholeDirectory()) {
                    try (RangeCursor c = Range.over(view, trees.master).cursor()) {
                        while (c.next()) {
                            ids.add(c.key().getLong(0, ByteOrder.BIG_ENDIAN));
                        }
                    }
                } else {
                    ids.add(base);
                    ArrayDeque<Long> todo = new ArrayDeque<>();
                    todo.add(base);
                    while (!todo.isEmpty()) {
                        addChildren(todo.poll(), ids, todo);
                    }
                }
            }
        }
        return ids.build();
    }

    private void addChildren(long id, CandidateSet.Builder ids, ArrayDeque<Long> todo) {
        try (RangeCursor c = children(id).cursor()) {
            while (c.next()) {
                DirectBuffer value = c.value();
                long child = value.getLong(0, ByteOrder.BIG_ENDIAN);
                ids.add(child);
                if (todo != null && trees.descendantsOf(view, child) > 0) {
                    todo.add(child);
                }
            }
        }
    }

    @Override
    public CandidateSet restrict(CandidateSet candidates) {
        if (scope == SearchScope.OBJECT) {
            return candidates.contains(base) ? CandidateSet.of(base) : CandidateSet.empty();
        }
        if (wholeDirectory()) {
            return candidates; // every entry lies below the suffix
        }
        CandidateSet.Builder kept = CandidateSet.builder();
        Map<Long, Boolean> decided = new HashMap<>();
        decided.put(base, true);
        PeekableLongIterator it = candidates.iterator();
        while (it.hasNext()) {
            long id = it.next();
            long parent = EntryCodec.parent(trees.record(view, id));
            boolean in = scope == SearchScope.ONELEVEL ? parent == base : id == base || below(parent, decided);
            if (in) {
                kept.add(id);
            }
        }
        return kept.build();
    }

    /** Whether {@code id} is the base or below it. */
    private boolean below(long id, Map<Long, Boolean> decided) {
        ArrayDeque<Long> path = new ArrayDeque<>();
        Boolean answer = null;
        long at = id;
        while (answer == null) {
            if (at == 0) {
                answer = false;
                break;
            }
            answer = decided.get(at);
            if (answer == null) {
                path.push(at);
                at = EntryCodec.parent(trees.record(view, at));
            }
        }
        for (Long p : path) {
            decided.put(p, answer);
        }
        return answer;
    }

    @Override
    public String toString() {
        return scope + " of " + (baseDn.isRoot() ? "\"\"" : baseDn.toString());
    }
}
