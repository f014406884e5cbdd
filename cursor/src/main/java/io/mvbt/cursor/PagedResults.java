// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.util.ArrayList;
import java.util.List;

import io.mvbt.ClosedException;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Tree;

/**
 * A materialized result served in pages of a chosen size, each ending in a {@link ResumeToken} for
 * the next. Every page is read from the same snapshot, so a result paged while writers commit is
 * exactly the result of one revision: no entry is skipped or repeated because others were added or
 * deleted meanwhile. When the snapshot is closed or expired, resuming throws
 * {@link ResumeTokenExpiredException}.
 */
public final class PagedResults {
    /** One candidate: its id and its entry as stored in the master tree. */
    public record Candidate(long id, byte[] entry) {
    }

    /** A page: its candidates, the total, and the token of the next page (null after the last). */
    public record Page(List<Candidate> candidates, long total, ResumeToken next) {
        public boolean isLast() {
            return next == null;
        }
    }

    private final long search;
    private final Snapshot snapshot;
    private final Tree master;
    private final CandidateSet ids;

    /** {@code search} identifies this result in its tokens (the directory numbers its searches). */
    public PagedResults(long search, Snapshot snapshot, Tree master, CandidateSet ids) {
        this.search = search;
        this.snapshot = snapshot;
        this.master = master;
        this.ids = ids;
    }

    public long total() {
        return ids.size();
    }

    public long revision() {
        return snapshot.revision();
    }

    /** The first page. */
    public Page first(int size) {
        return page(new ResumeToken(search, snapshot.revision(), 0), size);
    }

    /** The page {@code token} continues with. */
    public Page page(ResumeToken token, int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("page size must be positive: " + size);
        }
        if (token.search() != search) {
            throw new IllegalArgumentException("resume token of search " + token.search() + " given to search " + search);
        }
        if (token.revision() != snapshot.revision()) {
            throw new IllegalArgumentException("resume token of revision " + token.revision()
                    + " given to a search on revision " + snapshot.revision());
        }
        if (snapshot.isClosed()) {
            throw expired(null);
        }
        List<Candidate> out = new ArrayList<>(Math.min(size, 1024));
        try (CandidateCursor cursor = new CandidateCursor(snapshot, master, ids)) {
            boolean ok = cursor.seekPosition(token.position());
            while (ok && out.size() < size) {
                out.add(new Candidate(cursor.id(), cursor.entry()));
                ok = cursor.next();
            }
            ResumeToken next = ok ? new ResumeToken(search, snapshot.revision(), cursor.position()) : null;
            return new Page(out, ids.size(), next);
        } catch (ResumeTokenExpiredException e) {
            throw e;
        } catch (ClosedException e) {
            throw expired(e);
        }
    }

    private ResumeTokenExpiredException expired(Throwable cause) {
        return new ResumeTokenExpiredException("search " + search + " continues on revision " + snapshot.revision()
                + ", whose snapshot is " + (snapshot.isClosed() ? "closed" : "expired")
                + "; its results are gone: start the search again", cause);
    }
}
