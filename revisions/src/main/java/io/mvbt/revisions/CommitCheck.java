// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.CorruptionException;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.TreeChecker;
import io.mvbt.btree.TreeLimits;
import io.mvbt.btree.TreeRoot;

/**
 * The checked mode's look at a commit before it is published ({@link StoreOptions#checked}): every
 * page the transaction wrote is checked with the invariants that span pages ({@link TreeChecker}),
 * is reached once, and is in use; and every page it allocated and still holds is reached (none
 * leaked). Copy-on-write bounds the work by the pages written and their direct children, not by
 * the size of the store.
 */
final class CommitCheck {
    private final long revision;
    private final PageReader pages;
    private final TreeLimits limits;
    private final FreeSpace space;
    private final PageSet reached = new PageSet();
    private String tree;

    CommitCheck(long revision, PageReader pages, TreeLimits limits, FreeSpace space) {
        this.revision = revision;
        this.pages = pages;
        this.limits = limits;
        this.space = space;
    }

    /** Checks the pages of {@code root} this commit wrote; {@code name} says which tree, in failures. */
    void tree(String name, TreeRoot root) {
        tree = name;
        try {
            TreeChecker.check(pages, limits, root, revision - 1, this::reached);
        } catch (CorruptionException e) {
            throw refused(e);
        }
    }

    private CorruptionException refused(CorruptionException e) {
        String prefix = "page " + e.pageNo() + ": ";
        String problem = e.getMessage().startsWith(prefix) ? e.getMessage().substring(prefix.length())
                : e.getMessage();
        return refused(e.pageNo(), problem, e);
    }

    /** Every written page reached once and in use; the tree's check turns a failure into a refusal. */
    private void reached(long pageNo, int count, long written, long addr) {
        for (long p = pageNo; p < pageNo + count; p++) {
            if (!reached.set(p)) {
                throw new CorruptionException(p, "reached twice");
            }
            if (!space.inUse.get(p)) {
                throw new CorruptionException(p, "reached but marked free");
            }
        }
    }

    /**
     * Detached subtrees that this transaction wrote (a tree built and dropped, or loaded and cut,
     * in one transaction) wait in the garbage tree to be freed: their pages are reached there.
     */
    void detached(TreeRoot garbage) {
        tree = "detached subtrees";
        try {
            RevisionWalker.forEachDetached(pages, garbage, subtree -> {
                if (subtree.revision() == revision) {
                    TreeChecker.detached(pages, limits, subtree.page(), subtree.revision(), subtree.level(),
                            subtree.inlineOnly(), revision - 1, this::reached);
                }
            });
        } catch (CorruptionException e) {
            throw refused(e);
        }
    }

    /** After every tree: each page the transaction allocated and did not free is reached. */
    void noLeaks() {
        tree = null;
        space.forEachAllocated((page, count) -> {
            for (long p = page; p < page + count; p++) {
                if (space.inUse.get(p) && !reached.get(p)) {
                    throw refused(p, "written by the commit but nothing reaches it (a leak)", null);
                }
            }
        });
    }

    private CorruptionException refused(long pageNo, String problem, Throwable cause) {
        return new CorruptionException(pageNo, "checked mode refused the commit of revision " + revision
                + (tree != null ? " (" + tree + ")" : "") + ": " + problem, cause);
    }
}
