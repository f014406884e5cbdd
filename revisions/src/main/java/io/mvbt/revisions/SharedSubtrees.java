// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import org.agrona.collections.Long2LongHashMap;

import io.mvbt.CorruptionException;
import io.mvbt.btree.Node;
import io.mvbt.btree.PageHeader;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.TreeRoot;
import io.mvbt.btree.TreeWalker;

/**
 * The subtrees a revision reaches, named by the pointers (page number and the revision that wrote
 * the page) its roots and branch pages hold, collected without reading a leaf. Copy-on-write never
 * rewrites a published page, so an older revision's subtree whose pointer is among them is the same
 * subtree, every page of it: a walk of the older revision for what only it reaches passes over it
 * ({@link NamedRevisions#pinReachable}). Collecting them reads the newer revision's branch pages,
 * about a hundredth of its pages, and keeps one entry per page in memory (16 bytes, plus the map's
 * slack) while the walk runs.
 */
final class SharedSubtrees implements TreeWalker.Skip {
    /** Page number to the revision that wrote it, for every pointer found. */
    private final Long2LongHashMap pointers = new Long2LongHashMap(-1);

    private SharedSubtrees() {
    }

    /** The subtrees {@code r} reaches: its catalog, trees, detached subtrees and free map. */
    static SharedSubtrees of(PageReader reader, Revision r, int pageSize) {
        SharedSubtrees s = new SharedSubtrees();
        // The catalog and the free map are small: every page of theirs is listed.
        TreeWalker.walk(reader, r.catalog, -1, new TreeWalker.Visitor() {
            @Override
            public void node(long pageNo, long revision, long address, int level) {
                s.pointers.put(pageNo, revision);
            }

            @Override
            public void overflow(long pageNo, long revision, long address) {
                s.pointers.put(pageNo, revision);
            }
        });
        RevisionWalker.freeMapOf(r, pageSize).walk(reader, -1, (pageNo, revision, type, address) ->
                s.pointers.put(pageNo, revision));
        for (Catalog.Entry e : Catalog.list(reader, r.catalog, r.fresh, true)) {
            s.addTree(reader, e.root);
            if (e.name.equals(Garbage.NAME)) {
                RevisionWalker.forEachDetached(reader, e.root, subtree -> s.addTree(reader, subtree.root()));
            }
        }
        return s;
    }

    private void addTree(PageReader reader, TreeRoot root) {
        if (root.depth > 0) {
            pointers.put(root.page, root.revision);
            addChildren(reader, root.page, root.revision, root.depth - 1);
        }
    }

    /** Lists the children of a branch at {@code level} (above the leaves), and theirs down to the leaves' parents. */
    private void addChildren(PageReader reader, long pageNo, long revision, int level) {
        if (level == 0) {
            return;
        }
        long addr = reader.page(pageNo, revision, PageHeader.TYPE_BRANCH);
        if (Node.level(addr) != level) {
            throw new CorruptionException(pageNo, "branch at level " + Node.level(addr) + " where its parent says " + level);
        }
        int n = Node.count(addr);
        for (int i = 0; i < n; i++) {
            long child = Node.child(addr, i);
            long childRevision = Node.childRevision(addr, i);
            pointers.put(child, childRevision);
            addChildren(reader, child, childRevision, level - 1);
        }
    }

    @Override
    public boolean skip(long pageNo, long revision) {
        return pointers.get(pageNo) == revision;
    }
}
