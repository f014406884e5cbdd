// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.charset.StandardCharsets;
import java.util.function.LongConsumer;

import io.mvbt.btree.PageHeader;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.PageValidator;
import io.mvbt.btree.TreeRoot;
import io.mvbt.btree.TreeWalker;

/**
 * Visits the pages of a revision written after a given revision: the catalog, every tree, their
 * overflow runs, and the free map. Sealing (checksumming) at a checkpoint and verification after a
 * power cut visit only what recent commits wrote, because an old subtree is skipped whole.
 */
final class RevisionWalker {
    /** A page (or overflow run) reached. */
    interface Visitor {
        void page(long pageNo, long revision, int type, long address, int pages);
    }

    private RevisionWalker() {
    }

    static void walk(PageReader r, TreeRoot catalog, FreshRoots fresh, FreeMap freeMap, long since,
            Visitor visitor) {
        TreeWalker.Visitor nodes = nodeVisitor(visitor);
        TreeWalker.walk(r, catalog, since, nodes);
        if (catalog.depth > 0 && catalog.revision > since) {
            for (Catalog.Entry e : Catalog.list(r, catalog, fresh, true)) {
                walkTree(r, e.name, e.root, since, nodes);
            }
        } else {
            // The catalog is older than since, so only trees with fresh roots can have changed.
            for (int i = 0; i < fresh.size(); i++) {
                walkTree(r, new String(fresh.key(i), StandardCharsets.UTF_8), fresh.root(i), since, nodes);
            }
        }
        freeMap.walk(r, since, (pageNo, revision, type, address) -> visitor.page(pageNo, revision, type, address, 1));
    }

    /**
     * Visits the pages of revision {@code rev} but the subtrees {@code skip} passes over (a newer
     * revision shares them, see {@link SharedSubtrees}): its catalog, every tree with its overflow
     * runs and detached subtrees, and its free map (small, visited whole).
     */
    static void walkUnshared(PageReader r, Revision rev, int pageSize, TreeWalker.Skip skip, Visitor visitor) {
        TreeWalker.Visitor nodes = nodeVisitor(visitor);
        TreeWalker.walk(r, rev.catalog, skip, nodes);
        for (Catalog.Entry e : Catalog.list(r, rev.catalog, rev.fresh, true)) {
            TreeWalker.walk(r, e.root, skip, nodes);
            if (e.name.equals(Garbage.NAME)) {
                forEachDetached(r, e.root, subtree -> TreeWalker.walk(r, subtree.root(), skip, nodes));
            }
        }
        freeMapOf(rev, pageSize).walk(r, -1, (pageNo, revision, type, address) -> visitor.page(pageNo, revision, type,
                address, 1));
    }

    private static TreeWalker.Visitor nodeVisitor(Visitor visitor) {
        return new TreeWalker.Visitor() {
            @Override
            public void node(long pageNo, long revision, long address, int level) {
                visitor.page(pageNo, revision, level == 0 ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH, address, 1);
            }

            @Override
            public void overflow(long pageNo, long revision, long address) {
                visitor.page(pageNo, revision, PageHeader.TYPE_OVERFLOW, address, PageValidator.overflowPages(address));
            }
        };
    }

    private static void walkTree(PageReader r, String name, TreeRoot root, long since, TreeWalker.Visitor nodes) {
        TreeWalker.walk(r, root, since, nodes);
        if (name.equals(Garbage.NAME)) {
            forEachDetached(r, root, subtree -> TreeWalker.walk(r, subtree.root(), since, nodes));
        }
    }

    /** Calls {@code action} with every detached subtree listed in a garbage tree. */
    static void forEachDetached(PageReader r, TreeRoot garbage, java.util.function.Consumer<Garbage.Subtree> action) {
        io.mvbt.btree.TreeCursor c = new io.mvbt.btree.TreeCursor().reset(r, garbage);
        for (boolean ok = c.first(); ok; ok = c.next()) {
            action.accept(Garbage.read(io.mvbt.btree.TreeReader.valueAddress(c.entryAddress())));
        }
    }

    /** The free map of a revision, as a walkable object. */
    static FreeMap freeMapOf(Revision r, int pageSize) {
        FreeMap map = new FreeMap(pageSize);
        map.set(r.freeMapRoot, r.freeMapRevision, r.freeMapHeight);
        return map;
    }

    /** For {@link #seal}: pages sealed where they are stay there. */
    static final LongConsumer NO_WRITEBACK = pageNo -> { };

    /**
     * Checksums every page of revision {@code r} written after {@code since} that has none yet, and
     * hands each single page to {@code writeBack} (a shadow writes those it holds into the store
     * file): sealed or not, as another pass may have sealed a page it has not written yet.
     */
    static void seal(PageAccess access, Revision r, long since, LongConsumer writeBack) {
        Visitor sealer = (pageNo, revision, type, address, pages) -> {
            if (!PageHeader.isSealed(address)) {
                PageHeader.seal(address, access.checksums().ofRun(pageNo, pages));
                // A remote store sent the page unsealed, perhaps; it must send it again.
                access.store().written(pageNo, pages);
            }
            if (pages == 1) {
                writeBack.accept(pageNo);
            }
        };
        walk(access, r.catalog, r.fresh, freeMapOf(r, access.pageSize()), since, sealer);
    }
}
