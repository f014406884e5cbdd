package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.List;

import org.agrona.UnsafeApi;

import io.mvbt.btree.Keys;
import io.mvbt.btree.Node;
import io.mvbt.btree.Overflow;
import io.mvbt.btree.PageHeader;
import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.CorruptionException;
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
    /** Whether the subtree {@link #checkNode} last checked holds an overflow value. */
    private boolean overflowBelow;

    IntegrityChecker(Store store, PageAccess reader) {
        this.store = store;
        this.reader = reader;
    }

    CheckReport check(Revision r, long durableRevision) {
        return check(r, durableRevision, true);
    }

    /** Checks the trees and free map that {@code r} reaches, not the writer's free space (read-only stores). */
    CheckReport checkTrees(Revision r, long durableRevision) {
        return check(r, durableRevision, false);
    }

    private CheckReport check(Revision r, long durableRevision, boolean freeSpace) {
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
        if (problems.isEmpty() && freeSpace) {
            checkFreeSpace(r);
            checkHeldRevisions();
        }
        return new CheckReport(r.revision, pagesChecked, trees, entries, List.copyOf(problems));
    }

    private void checkTree(String name, TreeRoot root) {
        if (root.isEmpty()) {
            if (root.entries != 0) {
                problems.add(name + ": empty tree with counts " + root);
            }
            return;
        }
        long count = checkNode(name, root.page, root.revision, root.depth - 1, 0, -1, 0, -1);
        if (count != root.entries) {
            problems.add(name + ": holds " + count + " entries, its root says " + root.entries);
        }
    }

    private void checkDetached(Garbage.Subtree subtree) {
        overflowBelow = false;
        checkNode("detached subtree", subtree.page(), subtree.revision(), subtree.level(), 0, -1, 0, -1);
        if (overflowBelow && subtree.inlineOnly()) {
            problems.add("detached subtree at page " + subtree.page() + " is listed as holding no overflow value,"
                    + " but holds one");
        }
    }

    /**
     * Checks a subtree whose keys must lie in [low, high) (a length of -1 means unbounded) and
     * returns its entry count; sets {@link #overflowBelow} if it holds an overflow value.
     */
    private long checkNode(String name, long pageNo, long revision, int level, long low, int lowLength, long high,
            int highLength) {
        boolean leaf = level == 0;
        long page = reader.page(pageNo, revision, leaf ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        markReached(pageNo, 1, name);
        checkSealed(pageNo, revision, page);
        if (Node.level(page) != level) {
            problems.add(name + ": page " + pageNo + " at level " + Node.level(page) + ", expected " + level);
            return 0;
        }
        int n = Node.count(page);
        if (n == 0) {
            problems.add(name + ": page " + pageNo + " is an empty node in a non-empty tree");
            return 0;
        }
        if (leaf) {
            for (int i = 0; i < n; i++) {
                checkBounds(name, pageNo, page, i, low, lowLength, high, highLength);
                if (Node.isOverflow(page, i)) {
                    overflowBelow = true;
                    checkOverflow(name, page, i);
                }
            }
            return n;
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                checkBounds(name, pageNo, page, i, low, lowLength, high, highLength);
            }
            long childLow = i == 0 ? low : Node.keyAddress(page, i);
            int childLowLength = i == 0 ? lowLength : Node.keyLength(page, i);
            long childHigh = i + 1 < n ? Node.keyAddress(page, i + 1) : high;
            int childHighLength = i + 1 < n ? Node.keyLength(page, i + 1) : highLength;
            long childRevision = Node.childRevision(page, i);
            if (childRevision > revision) {
                problems.add(name + ": page " + pageNo + " points at a child newer than itself");
                continue;
            }
            boolean overflowLeft = overflowBelow;
            overflowBelow = false;
            long count = checkNode(name, Node.child(page, i), childRevision, level - 1, childLow, childLowLength,
                    childHigh, childHighLength);
            if (overflowBelow && Node.inlineOnly(page, i)) {
                problems.add(name + ": page " + pageNo + " says child " + Node.child(page, i)
                        + " holds no overflow value, but it holds one");
            }
            overflowBelow |= overflowLeft;
            if (count != Node.childCount(page, i)) {
                problems.add(name + ": page " + pageNo + " says child " + Node.child(page, i) + " holds "
                        + Node.childCount(page, i) + " entries, it holds " + count);
            }
            total += count;
        }
        return total;
    }

    private void checkBounds(String name, long pageNo, long page, int i, long low, int lowLength, long high,
            int highLength) {
        long key = Node.keyAddress(page, i);
        int length = Node.keyLength(page, i);
        if (lowLength >= 0 && Keys.compare(null, key, length, null, low, lowLength) < 0) {
            problems.add(name + ": page " + pageNo + " entry " + i + " sorts below its parent's separator");
        }
        if (highLength >= 0 && Keys.compare(null, key, length, null, high, highLength) >= 0) {
            problems.add(name + ": page " + pageNo + " entry " + i + " sorts at or above the next separator");
        }
    }

    private void checkOverflow(String name, long leaf, int i) {
        long ref = Node.valueAddress(leaf, i);
        long pageNo = UnsafeApi.getLong(ref);
        long revision = UnsafeApi.getLong(ref + 8);
        long length = UnsafeApi.getInt(ref + 16) & 0xFFFFFFFFL;
        long bytes = 0;
        int guard = 0;
        while (pageNo != 0) {
            if (++guard > 1 << 16) {
                problems.add(name + ": overflow chain too long at page " + pageNo);
                return;
            }
            long page = reader.page(pageNo, revision, PageHeader.TYPE_OVERFLOW);
            int pages = UnsafeApi.getInt(page + Overflow.PAGES);
            markReached(pageNo, pages, name);
            checkSealed(pageNo, revision, page);
            bytes += UnsafeApi.getInt(page + Overflow.BYTES);
            revision = UnsafeApi.getLong(page + Overflow.NEXT_REVISION);
            pageNo = UnsafeApi.getLong(page + Overflow.NEXT);
        }
        if (bytes != length) {
            problems.add(name + ": overflow value holds " + bytes + " bytes, its entry says " + length);
        }
    }

    private void markReached(long pageNo, int pages, String name) {
        for (long p = pageNo; p < pageNo + pages; p++) {
            pagesChecked++;
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

    private void checkFreeSpace(Revision r) {
        FreeSpace space = store.space();
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
        FreeSpace loaded = new FreeSpace(store.pages());
        RevisionWalker.freeMapOf(r, store.pageSize()).load(reader, loaded, count);
        FlipSet flips = store.flips();
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

    /** Nothing an open snapshot can reach may be reusable or discarded. */
    private void checkHeldRevisions() {
        FreeSpace space = store.space();
        for (Revision held : store.registry().heldRevisions()) {
            FreeMap freeMap = RevisionWalker.freeMapOf(held, store.pageSize());
            // An older revision may reach pages that no checkpoint sealed: its own bound applies.
            RevisionWalker.walk(reader.through(held.sealedThrough), held.catalog, held.fresh, freeMap, -1,
                    (pageNo, revision, type, address, pages) -> {
                        for (long p = pageNo; p < pageNo + pages; p++) {
                            if (space.reusable.get(p) || space.discarded.get(p)) {
                                problems.add("page " + p + " is " + (space.reusable.get(p) ? "reusable" : "discarded")
                                        + " but snapshot of revision " + held.revision + " reaches it");
                            }
                        }
                    });
        }
    }
}
