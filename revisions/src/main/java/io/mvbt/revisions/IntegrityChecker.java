// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.List;

import io.mvbt.CorruptionException;
import io.mvbt.btree.PageHeader;
import io.mvbt.btree.TreeChecker;
import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.PageStore;

/**
 * Checks a whole store: every page the newest revision reaches is valid (checksum, structure) and
 * reached exactly once; keys are in order within and across pages; every entry count and page
 * count is right; the persisted free map says exactly which pages are reached; and every page is
 * exactly one of in use, reusable, or waiting for readers, with nothing an open snapshot can see
 * marked reusable.
 */
final class IntegrityChecker {
    private final Store store;
    private final PageAccess reader;
    private final PageSet reached = new PageSet();
    private final List<String> problems = new ArrayList<>();
    private long pagesChecked;
    private long durable;
    /** Told the pages checked so far, every 4,096; null if nobody asks. */
    private java.util.function.LongConsumer progress;

    IntegrityChecker(Store store, PageAccess reader) {
        this.store = store;
        this.reader = reader;
    }

    IntegrityChecker reportingTo(java.util.function.LongConsumer pagesChecked) {
        this.progress = pagesChecked;
        return this;
    }

    /** Checks what {@code r} reaches and the writer's free space {@code space} (holding the writer permit). */
    CheckReport check(Revision r, long durableRevision, FreeSpace space) {
        return checkReaching(r, durableRevision, space);
    }

    /** Checks the trees and free map that {@code r} reaches, not the writer's free space (read-only stores). */
    CheckReport checkTrees(Revision r, long durableRevision) {
        return checkReaching(r, durableRevision, null);
    }

    /** What {@code r} reaches, and if {@code space} is given, the free space against it. */
    private CheckReport checkReaching(Revision r, long durableRevision, FreeSpace space) {
        this.durable = durableRevision;
        for (long p = 0; p < PageStore.META_SLOTS; p++) {
            reached.set(p);
        }
        int trees = 0;
        long entries = 0;
        try {
            checkTree("catalog", r.catalog);
            checkFreshRoots(r);
            for (Catalog.Entry e : Catalog.list(reader, r.catalog, r.fresh, true)) {
                boolean internal = e.name.charAt(0) == 0;
                if (!internal) {
                    trees++;
                    entries += e.root.entries;
                }
                checkTree("tree '" + e.name.replace("\0", "\\0") + "'", e.root);
                if (e.name.equals(Garbage.NAME)) {
                    // Detached subtrees stay in use until freed: their pages must be valid and reached once.
                    RevisionWalker.forEachDetached(reader, e.root, this::checkDetached);
                }
            }
            RevisionWalker.freeMapOf(r, store.pageSize()).walk(reader, -1, (pageNo, revision, type, address) -> {
                markReached(pageNo, 1, "free map");
                checkSealed(pageNo, revision, address);
            });
        } catch (CorruptionException e) {
            problems.add(e.getMessage());
        }
        if (problems.isEmpty() && space != null) {
            checkFreeSpace(r, space);
            checkHeldRevisions(r, space);
        }
        return new CheckReport(r.revision, pagesChecked, trees, entries, List.copyOf(problems));
    }

    /**
     * The invariants within and across the pages of one tree are {@link TreeChecker}'s; here each
     * page it reaches is also counted, reached once, and sealed where it must be. A damaged tree
     * gives one problem (its first), and the others are still checked.
     */
    private void checkTree(String name, TreeRoot root) {
        try {
            TreeChecker.check(reader, store.limits(), root, -1, (pageNo, pages, revision, addr) -> {
                markReached(pageNo, pages, name);
                checkSealed(pageNo, revision, addr);
            });
        } catch (CorruptionException e) {
            problems.add(name + ": " + e.getMessage());
        }
    }

    /** Detached subtrees stay in use until freed: their pages must be valid and reached once. */
    private void checkDetached(Garbage.Subtree subtree) {
        try {
            TreeChecker.detached(reader, store.limits(), subtree.page(), subtree.revision(), subtree.level(),
                    subtree.inlineOnly(), -1, (pageNo, pages, revision, addr) -> {
                        markReached(pageNo, pages, "detached subtree");
                        checkSealed(pageNo, revision, addr);
                    });
        } catch (CorruptionException e) {
            problems.add("detached subtree: " + e.getMessage());
        }
    }

    private void markReached(long pageNo, int pages, String name) {
        for (long p = pageNo; p < pageNo + pages; p++) {
            if ((++pagesChecked & 4095) == 0 && progress != null) {
                progress.accept(pagesChecked);
            }
            if (!reached.set(p)) {
                problems.add(name + ": page " + p + " is reached twice");
            }
        }
    }

    /** Every fresh root names a tree of the catalog, once. */
    private void checkFreshRoots(Revision r) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < r.fresh.size(); i++) {
            String name = new String(r.fresh.key(i), java.nio.charset.StandardCharsets.UTF_8).replace("\0", "\\0");
            if (!seen.add(name)) {
                problems.add("the meta names tree '" + name + "' twice among its fresh roots");
            } else if (Catalog.lookup(reader, r.catalog, r.fresh.key(i)) == null) {
                problems.add("the meta holds a fresh root of tree '" + name + "', which the catalog does not have");
            }
        }
    }

    private void checkSealed(long pageNo, long revision, long address) {
        if (store.pages().durable() && revision <= durable && !PageHeader.isSealed(address)) {
            problems.add("page " + pageNo + " of durable revision " + revision + " has no checksum");
        }
    }

    private void checkFreeSpace(Revision r, FreeSpace space) {
        long count = store.pages().pageCount();
        // The file may be longer than the revision says (an aborted transaction grew it): those pages are free.
        if (r.pageCount > count) {
            problems.add("revision says " + r.pageCount + " pages, the store has only " + count);
        }
        PageSet pending = new PageSet();
        space.pending.forEach((page, pages) -> {
            for (long p = page; p < page + pages; p++) {
                pending.set(p);
            }
        });
        // What a reopened store would load: the free map, with the flips of the meta applied.
        PageSet persisted = new PageSet();
        FreeSpace loaded = new FreeSpace(store.pages(), store.writeback());
        RevisionWalker.freeMapOf(r, store.pageSize()).load(reader, loaded, count);
        FlipSet flips = space.flips;
        for (long p = 0; p < count; p++) {
            boolean inMap = loaded.inUse.get(p) ^ flips.contains(p);
            if (inMap) {
                persisted.set(p);
            }
        }
        for (long p = 0; p < count; p++) {
            boolean isReached = reached.get(p);
            boolean inUse = space.inUse.get(p);
            boolean reusable = space.reusable.get(p);
            boolean waiting = pending.get(p);
            if (isReached != inUse) {
                problems.add("page " + p + (isReached ? " is reached but not marked in use" : " is marked in use but"
                        + " not reached (a leak)"));
            }
            if (p >= PageStore.META_SLOTS && persisted.get(p) != isReached) {
                problems.add("page " + p + (isReached ? " is reached but the persisted free map says free"
                        : " is free but the persisted free map says in use"));
            }
            boolean gone = space.discarded.get(p);
            int states = (inUse ? 1 : 0) + (reusable ? 1 : 0) + (waiting ? 1 : 0) + (gone ? 1 : 0);
            if (p >= PageStore.META_SLOTS && states != 1) {
                problems.add("page " + p + " is " + (inUse ? "in use " : "") + (reusable ? "reusable " : "")
                        + (waiting ? "waiting " : "") + (gone ? "discarded " : "")
                        + (states == 0 ? "nothing (lost)" : "at once"));
            }
            if (problems.size() > 100) {
                return;
            }
        }
    }

    /** Nothing an open snapshot or a named revision can reach may be reusable or discarded. */
    private void checkHeldRevisions(Revision newest, FreeSpace space) {
        List<Revision> all = new ArrayList<>(List.of(store.registry().heldRevisions()));
        for (NamedRevisions.Entry e : NamedRevisions.list(reader, newest)) {
            all.add(e.revision());
        }
        for (Revision held : all) {
            FreeMap freeMap = RevisionWalker.freeMapOf(held, store.pageSize());
            // An older revision may reach pages that no checkpoint sealed: its own bound applies.
            RevisionWalker.walk(reader.through(held.sealedThrough), held.catalog, held.fresh, freeMap, -1,
                    (pageNo, revision, type, address, pages) -> {
                        for (long p = pageNo; p < pageNo + pages; p++) {
                            if (space.reusable.get(p) || space.discarded.get(p)) {
                                problems.add("page " + p + " is " + (space.reusable.get(p) ? "reusable" : "discarded")
                                        + " but held revision " + held.revision + " reaches it");
                            }
                        }
                    });
        }
    }
}
