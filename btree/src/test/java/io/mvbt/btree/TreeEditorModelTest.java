// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.agrona.DirectBuffer;
import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;

/** The tree editor and cursor against a TreeMap, with a fake page context (no revisions layer). */
class TreeEditorModelTest {
    private static final long BASE = UNSAFE.arrayBaseOffset(byte[].class);

    private final TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);

    @Test
    void randomPutsAndDeletesMatchTheModel() {
        for (long seed = 1; seed <= 6; seed++) {
            model.clear();
            run(seed, 4096, 20_000);
        }
    }

    @Test
    void largePagesWork() {
        run(99, 65536, 20_000);
    }

    @Test
    void sequentialLoadFillsPages() {
        FakePages pages = new FakePages(4096);
        TreeEditor editor = new TreeEditor(pages.limits);
        TreeRoot root = new TreeRoot();
        byte[] value = new byte[100];
        for (int i = 0; i < 100_000; i++) {
            byte[] key = String.format("%016d", i).getBytes();
            editor.put(pages, root, key, BASE, key.length, value, BASE, value.length);
        }
        assertEquals(100_000, root.entries);
        // 16-byte keys, 100-byte values: 122 bytes per entry with its slot, 33 per page when full.
        long minimumLeaves = 100_000 / 33;
        long leaves = countPages(pages, root)[0];
        assertTrue(leaves < minimumLeaves * 1.05, "leaves " + leaves + " for " + minimumLeaves + " full ones");
    }

    @Test
    void overwritingAValueOfTheSameLengthLeavesThePageNoGarbage() {
        FakePages pages = new FakePages(4096);
        TreeEditor editor = new TreeEditor(pages.limits);
        TreeRoot root = new TreeRoot();
        Random random = new Random(5);
        for (int i = 0; i < 2000; i++) {
            byte[] key = String.format("%016d", i).getBytes();
            byte[] value = value(random, 4096);
            if (!pages.limits.inline(key.length, value.length)) {
                value = new byte[100];
            }
            editor.put(pages, root, key, BASE, key.length, value, BASE, value.length);
            model.put(key, value);
        }
        pages.nextRevision();
        // Every key again, with a value of the same length: nothing to compact afterwards.
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            byte[] value = new byte[e.getValue().length];
            random.nextBytes(value);
            byte[] key = e.getKey();
            assertFalse(editor.put(pages, root, key, BASE, key.length, value, BASE, value.length));
            e.setValue(value);
        }
        check(pages, root, 5, 0);
        TreeWalker.walk(pages, root, -1, new TreeWalker.Visitor() {
            @Override
            public void node(long pageNo, long revision, long address, int level) {
                assertEquals(0, Node.garbage(address), "garbage in page " + pageNo + " at level " + level);
            }

            @Override
            public void overflow(long pageNo, long revision, long address) {
            }
        });
        // A longer value still replaces the entry (and leaves garbage to compact).
        byte[] key = model.firstKey();
        byte[] longer = new byte[model.get(key).length + 1];
        assertFalse(editor.put(pages, root, key, BASE, key.length, longer, BASE, longer.length));
        model.put(key, longer);
        check(pages, root, 5, 1);
    }

    private void run(long seed, int pageSize, int operations) {
        Random random = new Random(seed);
        FakePages pages = new FakePages(pageSize);
        TreeEditor editor = new TreeEditor(pages.limits);
        TreeRoot root = new TreeRoot();
        int keySpace = 2000;
        for (int op = 0; op < operations; op++) {
            byte[] key = key(random, keySpace, pages.limits.maxKeySize);
            int choice = random.nextInt(10);
            if (choice < 6) {
                byte[] value = value(random, pageSize);
                boolean inserted = editor.put(pages, root, key, BASE, key.length, value, BASE, value.length);
                assertEquals(!model.containsKey(key), inserted, "seed " + seed + " op " + op);
                model.put(key, value);
            } else {
                boolean deleted = editor.delete(pages, root, key, BASE, key.length);
                assertEquals(model.containsKey(key), deleted, "seed " + seed + " op " + op);
                model.remove(key);
            }
            if (random.nextInt(50) == 0) {
                pages.nextRevision();
            }
            if (op % 997 == 0) {
                check(pages, root, seed, op);
            }
            if (random.nextInt(5000) == 0) {
                // Delete nearly everything, in random order, to exercise merges up to the root.
                for (byte[] k : model.keySet().toArray(new byte[0][])) {
                    if (random.nextInt(10) != 0) {
                        assertTrue(editor.delete(pages, root, k, BASE, k.length));
                        model.remove(k);
                    }
                }
                check(pages, root, seed, op);
            }
        }
        check(pages, root, seed, operations);
        for (byte[] k : model.keySet().toArray(new byte[0][])) {
            assertTrue(editor.delete(pages, root, k, BASE, k.length));
        }
        model.clear();
        assertTrue(root.isEmpty());
        assertEquals(0, pages.pagesInUse(), "every page freed once the tree is empty");
    }

    private void check(FakePages pages, TreeRoot root, long seed, int op) {
        String where = "seed " + seed + " op " + op;
        assertEquals(model.size(), root.entries, where);
        TreeCursor cursor = new TreeCursor().reset(pages, root);
        int seen = 0;
        boolean ok = cursor.first();
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertTrue(ok, where + ": cursor ended early at " + seen);
            assertArrayEquals(e.getKey(), bytes(cursor.key()), where);
            assertArrayEquals(e.getValue(), bytes(cursor.value()), where);
            ok = cursor.next();
            seen++;
        }
        assertFalse(ok, where);
        ok = cursor.last();
        for (byte[] k : model.descendingKeySet()) {
            assertTrue(ok, where);
            assertArrayEquals(k, bytes(cursor.key()), where);
            ok = cursor.prev();
        }
        assertFalse(ok, where);
        TreeChecker.check(pages, pages.limits, root, -1, (pageNo, n, revision, addr) -> {
        });
        long[] counted = countPages(pages, root);
        assertEquals(pages.pagesInUse(), counted[0] + counted[1] + counted[2], where + ": page accounting");
        TreeWalker.walk(pages, root, -1, new TreeWalker.Visitor() {
            @Override
            public void node(long pageNo, long revision, long address, int level) {
                if (level > 0) {
                    for (int i = 0; i < Node.count(address); i++) {
                        long childNo = Node.child(address, i);
                        long child = pages.address(childNo);
                        assertEquals(Node.childCount(address, i), Node.totalCount(child) > 0 && level > 1
                                ? sumBelow(pages, childNo, Node.childRevision(address, i), level - 1)
                                : Node.count(child), where + ": count of child " + childNo);
                    }
                }
            }

            @Override
            public void overflow(long pageNo, long revision, long address) {
            }
        });
    }

    /** Leaf, branch and overflow pages of a tree, by walking it. */
    static long[] countPages(FakePages pages, TreeRoot root) {
        long[] counts = new long[3];
        TreeWalker.walk(pages, root, -1, new TreeWalker.Visitor() {
            @Override
            public void node(long pageNo, long revision, long address, int level) {
                counts[level == 0 ? 0 : 1]++;
            }

            @Override
            public void overflow(long pageNo, long revision, long address) {
                counts[2] += PageValidator.overflowPages(address);
            }
        });
        return counts;
    }

    private static long sumBelow(FakePages pages, long pageNo, long revision, int level) {
        long page = pages.page(pageNo, revision, level == 0 ? PageHeader.TYPE_LEAF : PageHeader.TYPE_BRANCH);
        if (level == 0) {
            return Node.count(page);
        }
        long total = 0;
        for (int i = 0; i < Node.count(page); i++) {
            total += sumBelow(pages, Node.child(page, i), Node.childRevision(page, i), level - 1);
        }
        return total;
    }

    private static byte[] bytes(DirectBuffer buffer) {
        byte[] out = new byte[buffer.capacity()];
        buffer.getBytes(0, out);
        return out;
    }

    private static byte[] key(Random random, int keySpace, int maxKey) {
        int n = random.nextInt(keySpace);
        int kind = n % 10;
        if (kind == 0) {
            byte[] k = new byte[maxKey];
            Arrays.fill(k, (byte) 'L');
            byte[] suffix = Integer.toString(n).getBytes();
            System.arraycopy(suffix, 0, k, maxKey - suffix.length, suffix.length);
            return k;
        }
        if (kind == 1) {
            return Integer.toString(n).getBytes();
        }
        return String.format("key-%08d", n).getBytes();
    }

    private static byte[] value(Random random, int pageSize) {
        int kind = random.nextInt(20);
        int length;
        if (kind == 0) {
            length = 0;
        } else if (kind == 1) {
            length = pageSize + random.nextInt(3 * pageSize);
        } else if (kind == 2) {
            length = 70 * pageSize + random.nextInt(pageSize);
        } else {
            length = random.nextInt(200);
        }
        byte[] v = new byte[length];
        random.nextBytes(v);
        return v;
    }
}
