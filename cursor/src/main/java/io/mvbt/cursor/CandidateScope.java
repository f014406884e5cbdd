// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

/**
 * The entries a search may return (LDAP: the base entry, its children, or its subtree), on the
 * snapshot the search runs on. NOT complements within the scope, and an unindexed term scans it.
 * The evaluator materializes the scope only when it must: a search whose index terms already
 * narrowed the candidates asks the scope to {@link #restrict} those few instead.
 */
public interface CandidateScope {
    /** Entries in the scope: exact or an upper bound, cheap (O(log n)). */
    long estimate();

    /** Every id in the scope. */
    CandidateSet materialize();

    /** The ids of {@code candidates} that lie in the scope. */
    CandidateSet restrict(CandidateSet candidates);

    /** A scope of exactly the ids in {@code ids}. */
    static CandidateScope of(CandidateSet ids, String description) {
        return new CandidateScope() {
            @Override
            public long estimate() {
                return ids.size();
            }

            @Override
            public CandidateSet materialize() {
                return ids;
            }

            @Override
            public CandidateSet restrict(CandidateSet candidates) {
                return candidates.and(ids);
            }

            @Override
            public String toString() {
                return description;
            }
        };
    }
}
