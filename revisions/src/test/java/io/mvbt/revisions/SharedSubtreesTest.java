// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walk an open makes of each named revision ({@link NamedRevisions#pinReachable}) reads what
 * changed since the name, not the whole revision: it passes over the subtrees the newer revision
 * shares ({@link SharedSubtrees}). A walk that read them would visit the whole tree here.
 */
class SharedSubtreesTest {
    @TempDir
    Path dir;

    @Test
    void aWalkOfANamedRevisionPassesOverWhatTheNewestShares() {
        try (Store store = Store.open(dir.resolve("s.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL))) {
            Tree tree = store.tree("t");
            UnsafeBuffer value = new UnsafeBuffer(new byte[100]);
            store.write(tx -> {
                tx.createTree("t");
                for (int i = 0; i < 50_000; i++) {
                    tx.put(tree, key(i), value);
                }
                return null;
            });
            store.retain("before");
            store.write(tx -> {
                for (int i = 0; i < 50_000; i += 5_000) {
                    tx.put(tree, key(i), new UnsafeBuffer(new byte[7]));
                }
                return null;
            });
            try (Snapshot named = store.beginRead("before"); Snapshot newest = store.beginRead()) {
                PageAccess access = store.access();
                int pageSize = access.pageSize();
                long[] whole = {0};
                RevisionWalker.walkUnshared(named.rev().reader(access), named.rev(), pageSize,
                        (pageNo, revision) -> false, (pageNo, revision, type, address, pages) -> whole[0]++);
                long[] unshared = {0};
                SharedSubtrees shared = SharedSubtrees.of(newest.rev().reader(access), newest.rev(), pageSize);
                RevisionWalker.walkUnshared(named.rev().reader(access), named.rev(), pageSize, shared,
                        (pageNo, revision, type, address, pages) -> unshared[0]++);
                long[] itself = {0};
                RevisionWalker.walkUnshared(named.rev().reader(access), named.rev(), pageSize,
                        SharedSubtrees.of(named.rev().reader(access), named.rev(), pageSize),
                        (pageNo, revision, type, address, pages) -> itself[0]++);
                assertTrue(whole[0] > 1_000, "the tree spans " + whole[0] + " pages");
                // Ten leaves changed, each with its path, besides the small catalog and free map.
                assertTrue(unshared[0] < 100, unshared[0] + " of " + whole[0] + " pages walked");
                // A revision shares everything with itself: only the free map is walked whole.
                assertTrue(itself[0] <= unshared[0], itself[0] + " pages walked against the same revision");
            }
        }
        // And what it pins survives a reopen: the named revision still reads as it was.
        try (Store store = Store.open(dir.resolve("s.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL));
                Snapshot named = store.beginRead("before")) {
            assertEquals(50_000, named.count(store.tree("t")));
            UnsafeBuffer out = new UnsafeBuffer(new byte[0]);
            assertTrue(named.get(store.tree("t"), key(5_000), out));
            assertEquals(100, out.capacity());
        }
    }

    private static UnsafeBuffer key(int i) {
        return new UnsafeBuffer(String.format("k%08d", i).getBytes(StandardCharsets.US_ASCII));
    }
}
