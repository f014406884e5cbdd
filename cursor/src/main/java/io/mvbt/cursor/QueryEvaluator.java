// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.roaringbitmap.longlong.PeekableLongIterator;

import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Tree;

/**
 * Evaluates a {@link Query} on one view (a snapshot) into a {@link CandidateSet}, within a
 * {@link CandidateScope}, and records a {@link QueryPlan}.
 *
 * <p>Each node is evaluated against a domain of candidates: the scope at the top, and inside an AND
 * the ids its earlier children left. A node's result agrees with the query on its domain; index
 * terms may return ids outside it (they scan the whole index range), which the enclosing AND, or the
 * final restriction to the scope, removes. The rules:
 * <ul>
 * <li>AND orders its children by estimate, index terms first, then NOT and unindexed terms (which
 * only filter what is left); it stops as soon as the intersection is empty.
 * <li>When a node's domain is already far smaller than an index term's estimate (what an AND has
 * left, the candidates a NOT removes from, or a small scope such as a base entry or the children of
 * one entry) and the term can be checked on an entry, the evaluator fetches those candidates instead
 * of scanning the index.
 * <li>OR unions its children, each over the same domain.
 * <li>NOT removes its child's matches from its domain (the scope, or what an AND has left).
 * <li>An unindexed term fetches every id of its domain from the master tree and tests the entry.
 * </ul>
 */
public final class QueryEvaluator {
    /** Check entries instead of scanning an index when the scan would read this many times more keys. */
    private static final long CHECK_INSTEAD_OF_SCAN_RATIO = 8;

    private final ReadView view;
    private final Tree master;
    private final CandidateScope scope;
    private final Map<Query, Long> estimates = new IdentityHashMap<>();
    private CandidateSet scopeIds;

    public QueryEvaluator(ReadView view, Tree master, CandidateScope scope) {
        this.view = view;
        this.master = master;
        this.scope = scope;
    }

    /** The ids and the plan of one evaluation. */
    public record Evaluation(CandidateSet ids, QueryPlan plan) {
    }

    /** Evaluates {@code query} within the scope. */
    public Evaluation evaluate(Query query) {
        QueryPlan root = new QueryPlan(() -> "SEARCH in " + scope, estimate(query));
        // A scope far smaller than the index ranges the query would read (a base entry, the children
        // of one entry, a small subtree) is the domain from the start, so that its few entries are
        // checked instead of every index range being scanned.
        CandidateSet domain = scope.estimate() * CHECK_INSTEAD_OF_SCAN_RATIO < scanned(query) ? domainIds(null) : null;
        Result result = evaluate(query, domain, root);
        CandidateSet ids;
        if (result.withinDomain) {
            ids = result.ids;
        } else if (scopeIds != null) {
            ids = result.ids.and(scopeIds);
        } else {
            ids = scope.restrict(result.ids);
        }
        root.actual(ids.size());
        return new Evaluation(ids, root);
    }

    /** What a node gave: its ids, and whether they are known to lie within its domain. */
    private record Result(CandidateSet ids, boolean withinDomain) {
    }

    /** The domain's ids: {@code domain} itself, or the scope's when it is null. */
    private CandidateSet domainIds(CandidateSet domain) {
        if (domain != null) {
            return domain;
        }
        if (scopeIds == null) {
            scopeIds = scope.materialize();
        }
        return scopeIds;
    }

    private long domainSize(CandidateSet domain) {
        return domain != null ? domain.size() : scopeIds != null ? scopeIds.size() : scope.estimate();
    }

    /** Upper bound of a node's matches within the scope, in O(log n) per index term. */
    long estimate(Query query) {
        Long known = estimates.get(query);
        if (known != null) {
            return known;
        }
        long e;
        if (query instanceof Query.Indexed indexed) {
            e = indexed.scan().estimate(view);
        } else if (query instanceof Query.And and) {
            e = scope.estimate();
            for (Query child : and.children()) {
                e = Math.min(e, estimate(child));
            }
        } else if (query instanceof Query.Or or) {
            e = 0;
            for (Query child : or.children()) {
                e += estimate(child);
            }
            e = Math.min(e, scope.estimate());
        } else {
            e = scope.estimate();
        }
        estimates.put(query, e);
        return e;
    }

    /**
     * Index keys evaluating {@code query} over the whole scope would read at least: what checking the
     * scope's entries instead saves. An AND scans at least its cheapest index child; unindexed terms
     * read entries of the domain, not indexes.
     */
    private long scanned(Query query) {
        if (query instanceof Query.Indexed) {
            return estimate(query);
        }
        if (query instanceof Query.Not not) {
            return scanned(not.child());
        }
        if (query instanceof Query.Or or) {
            long sum = 0;
            for (Query child : or.children()) {
                sum += scanned(child);
            }
            return sum;
        }
        if (query instanceof Query.And and) {
            long least = Long.MAX_VALUE;
            for (Query child : and.children()) {
                if (!(child instanceof Query.Not) && !(child instanceof Query.Unindexed)) {
                    least = Math.min(least, scanned(child));
                }
            }
            return least == Long.MAX_VALUE ? 0 : least;
        }
        return 0;
    }

    private Result evaluate(Query query, CandidateSet domain, QueryPlan parent) {
        if (query instanceof Query.Indexed indexed) {
            if (domain != null && indexed.check() != null && domain.size() * CHECK_INSTEAD_OF_SCAN_RATIO < estimate(query)) {
                QueryPlan check = parent.add(new QueryPlan(() -> "check " + indexed.scan() + " on candidates",
                        estimate(query)));
                CandidateSet ids = check(domain, indexed.check(), check);
                check.actual(ids.size());
                return new Result(ids, true);
            }
            QueryPlan plan = parent.add(new QueryPlan(indexed.scan()::toString, estimate(query)));
            CandidateSet ids = indexed.scan().materialize(view);
            plan.actual(ids.size());
            return new Result(ids, false);
        }
        if (query instanceof Query.Unindexed unindexed) {
            QueryPlan plan = parent.add(new QueryPlan(() -> "scan " + unindexed.description(), domainSize(domain)));
            CandidateSet ids = check(domainIds(domain), unindexed.test(), plan);
            plan.actual(ids.size());
            return new Result(ids, true);
        }
        if (query instanceof Query.Not not) {
            QueryPlan plan = parent.add(new QueryPlan("NOT", domainSize(domain)));
            CandidateSet base = domainIds(domain);
            Result inner = evaluate(not.child(), base, plan);
            CandidateSet ids = base.andNot(inner.ids);
            plan.actual(ids.size());
            return new Result(ids, true);
        }
        if (query instanceof Query.Or or) {
            QueryPlan plan = parent.add(new QueryPlan("OR", estimate(query)));
            CandidateSet ids = CandidateSet.empty();
            boolean within = true;
            for (Query child : or.children()) {
                Result r = evaluate(child, domain, plan);
                ids = ids.or(r.ids);
                within &= r.withinDomain;
            }
            plan.actual(ids.size());
            return new Result(ids, within);
        }
        return evaluateAnd((Query.And) query, domain, parent);
    }

    private Result evaluateAnd(Query.And and, CandidateSet domain, QueryPlan parent) {
        QueryPlan plan = parent.add(new QueryPlan("AND", estimate(and)));
        List<Query> order = new ArrayList<>(and.children());
        // Index terms narrow; NOT and unindexed terms only filter what is left, so they go last.
        order.sort(Comparator.comparingInt((Query q) -> q instanceof Query.Indexed || q instanceof Query.And
                || q instanceof Query.Or ? 0 : 1).thenComparingLong(this::estimate));
        CandidateSet current = null;
        boolean within = false;
        for (Query child : order) {
            if (current != null && current.isEmpty()) {
                QueryPlan skipped = plan.add(new QueryPlan(() -> describe(child), estimate(child)));
                skipped.skip();
                continue;
            }
            if (child instanceof Query.Not not) {
                // Over what the AND has left, or over the whole domain if this comes first.
                within |= current == null;
                CandidateSet base = current != null ? current : domainIds(domain);
                QueryPlan notPlan = plan.add(new QueryPlan("NOT", base.size()));
                Result inner = evaluate(not.child(), base, notPlan);
                current = base.andNot(inner.ids);
                notPlan.actual(current.size());
                continue;
            }
            Result r = evaluate(child, current != null ? current : domain, plan);
            // Later children run over what the first left, so only the first can bound the result
            // by the domain (index terms return ids from anywhere).
            if (current == null && domain != null && !r.withinDomain) {
                // A materialized domain (inside NOT, or a later AND) bounds an index scan at once, so
                // that the unindexed terms after it fetch only entries of the domain.
                current = r.ids.and(domain);
                within = true;
            } else if (current == null) {
                within = r.withinDomain;
                current = r.ids;
            } else {
                current = current.and(r.ids);
            }
        }
        if (current == null) {
            current = domainIds(domain);
            within = true;
        }
        plan.actual(current.size());
        return new Result(current, within);
    }

    private CandidateSet check(CandidateSet candidates, Query.EntryTest test, QueryPlan plan) {
        CandidateSet.Builder kept = CandidateSet.builder();
        PeekableLongIterator it = candidates.iterator();
        long fetched = 0;
        while (it.hasNext()) {
            long id = it.next();
            byte[] entry = view.get(master, IndexKey.idKey(id));
            fetched++;
            if (entry == null) {
                throw new MissingEntryException(id, master, view.revision());
            }
            if (test.test(id, entry)) {
                kept.add(id);
            }
        }
        plan.fetched(fetched);
        return kept.build();
    }

    private static String describe(Query query) {
        if (query instanceof Query.Indexed indexed) {
            return indexed.scan().toString();
        }
        if (query instanceof Query.Unindexed unindexed) {
            return "scan " + unindexed.description();
        }
        return query.getClass().getSimpleName().toUpperCase(java.util.Locale.ROOT);
    }
}
