// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.util.ArrayList;
import java.util.List;

import io.mvbt.cursor.CandidateCursor;
import io.mvbt.cursor.CandidateSet;
import io.mvbt.cursor.PagedResults;
import io.mvbt.cursor.QueryEvaluator;
import io.mvbt.cursor.QueryPlan;
import io.mvbt.cursor.ResumeToken;
import io.mvbt.revisions.Snapshot;

/**
 * The result of one search: the matching ids, gathered on one snapshot, and that snapshot, from
 * which every entry is fetched. Entries that later commits change or delete are returned as they
 * were. Holds the snapshot until closed; page tokens work until then and afterwards throw
 * {@link io.mvbt.cursor.ResumeTokenExpiredException}.
 */
public final class SearchResult implements AutoCloseable {
    /** One page of entries, the total, and the token of the next page (null after the last). */
    public record Page(List<Entry> entries, long total, String next) {
        public boolean isLast() {
            return next == null;
        }
    }

    private final long search;
    private final Snapshot snapshot;
    private final DirectoryTrees trees;
    private final Filter filter;
    private final CandidateSet ids;
    private final QueryPlan plan;
    private final PagedResults paged;

    SearchResult(long search, Snapshot snapshot, DirectoryTrees trees, Filter filter,
            QueryEvaluator.Evaluation evaluation) {
        this.search = search;
        this.snapshot = snapshot;
        this.trees = trees;
        this.filter = filter;
        this.ids = evaluation.ids();
        this.plan = evaluation.plan();
        this.paged = new PagedResults(search, snapshot, trees.master, ids);
    }

    /** Number of matching entries, known before any is fetched. */
    public long count() {
        return ids.size();
    }

    /** The revision searched. */
    public long revision() {
        return snapshot.revision();
    }

    public Filter filter() {
        return filter;
    }

    /** What the search did: indexes used, estimated and actual sizes, entries fetched. */
    public QueryPlan plan() {
        return plan;
    }

    /** The matching entry ids. */
    public CandidateSet ids() {
        return ids;
    }

    /** A cursor over the matching entries (id order), both ways. */
    public EntryCursor cursor() {
        return new EntryCursor(new CandidateCursor(snapshot, trees.master, ids), trees.new DnResolver(snapshot));
    }

    /** Every matching entry, in id order. */
    public List<Entry> entries() {
        List<Entry> out = new ArrayList<>((int) Math.min(ids.size(), 1 << 20));
        try (EntryCursor c = cursor()) {
            while (c.next()) {
                out.add(c.entry());
            }
        }
        return out;
    }

    /** The first page of {@code size} entries. */
    public Page page(int size) {
        return convert(paged.first(size));
    }

    /** The page {@code token} (from an earlier page of this result) continues with. */
    public Page page(String token, int size) {
        return convert(paged.page(ResumeToken.decode(token), size));
    }

    private Page convert(PagedResults.Page page) {
        DirectoryTrees.DnResolver dns = trees.new DnResolver(snapshot);
        List<Entry> entries = new ArrayList<>(page.candidates().size());
        for (PagedResults.Candidate c : page.candidates()) {
            entries.add(dns.entry(c.entry()));
        }
        return new Page(entries, page.total(), page.next() == null ? null : page.next().encode());
    }

    @Override
    public void close() {
        snapshot.close();
    }

    @Override
    public String toString() {
        return "search " + search + " " + filter + " at revision " + snapshot.revision() + ": " + ids.size()
                + " entries";
    }
}
