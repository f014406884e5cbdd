// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a query evaluation did, node by node: the operation, the index it used (or that it fetched
 * and tested entries), the estimate it was ordered by, the size it actually produced, how many
 * entries it fetched, and whether it was skipped because an AND had already become empty.
 * {@link #toString()} prints it as an indented tree.
 */
public final class QueryPlan {
    /** Describes the node only when asked: a search that nobody explains builds no strings. */
    private final java.util.function.Supplier<String> describe;
    private String operation;
    private final long estimate;
    private long actual = -1;
    private long fetched;
    private boolean skipped;
    private final List<QueryPlan> children = new ArrayList<>();

    QueryPlan(String operation, long estimate) {
        this(() -> operation, estimate);
    }

    QueryPlan(java.util.function.Supplier<String> describe, long estimate) {
        this.describe = describe;
        this.estimate = estimate;
    }

    QueryPlan add(QueryPlan child) {
        children.add(child);
        return child;
    }

    void actual(long size) {
        this.actual = size;
    }

    void fetched(long entries) {
        this.fetched += entries;
    }

    void skip() {
        this.skipped = true;
    }

    /** What the node did: "AND", "index cn prefix \"test\"", "scan (description=*x*)", ... */
    public String operation() {
        if (operation == null) {
            operation = describe.get();
        }
        return operation;
    }

    /** The size the evaluator expected before running the node. */
    public long estimate() {
        return estimate;
    }

    /** The size the node produced; -1 if it was skipped. */
    public long actual() {
        return actual;
    }

    /** Entries the node fetched from the master tree to test them. */
    public long fetched() {
        return fetched;
    }

    public boolean skipped() {
        return skipped;
    }

    public List<QueryPlan> children() {
        return Collections.unmodifiableList(children);
    }

    /** Entries fetched by this node and all below it. */
    public long totalFetched() {
        long total = fetched;
        for (QueryPlan child : children) {
            total += child.totalFetched();
        }
        return total;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        print(out, 0);
        return out.toString();
    }

    private void print(StringBuilder out, int depth) {
        out.append("  ".repeat(depth)).append(operation()).append("  est=").append(estimate);
        if (skipped) {
            out.append("  skipped (AND already empty)");
        } else {
            out.append("  actual=").append(actual);
        }
        if (fetched > 0) {
            out.append("  fetched=").append(fetched);
        }
        out.append('\n');
        for (QueryPlan child : children) {
            child.print(out, depth + 1);
        }
    }
}
