// SPDX-License-Identifier: Apache-2.0
package io.mvbt.btree;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.agrona.DirectBuffer;
import static org.agrona.UnsafeAccess.UNSAFE;
import org.junit.jupiter.api.Test;

import io.mvbt.testkit.AscendingKeys;
import io.mvbt.testkit.Shrink;

/**
 * Every structural path of the editor (puts, deletes, range deletes, bulk loads into empty and
 * non-empty trees with loaders left open while other trees change, reclaiming detached subtrees)
 * against TreeMaps, with {@link TreeChecker} after every operation. Keys are drawn over the whole
 * allowed range, weighted to its edges (empty, one byte, just under the limit, the limit), values
 * across the inline/overflow boundary, and every page size from 4 KiB to 64 KiB. Three trees share
 * one editor, as a transaction's trees and its catalog do.
 *
 * <p>A failure names its seed and page size and prints the operations shrunk to a minimal list;
 * {@code -Dmvbt.seed=N -Dmvbt.pageSize=P} replays one; {@code -Dmvbt.treeSeeds=N} sets the seeds
 * per page size (4, or 400 in the long profile) and {@code -Dmvbt.treeOps=N} the operations per seed.
 */
class TreeStructureModelTest {
    private static final long BASE = UNSAFE.arrayBaseOffset(byte[].class);
    private static final int[] PAGE_SIZES = {4096, 8192, 16384, 32768, 65536};
    private static final int TREES = 3;

    enum Kind {
        PUT, PUT_EXISTING, DELETE, DELETE_RANGE, LOAD_START, LOAD_ADD, LOAD_FINISH, NEXT_REVISION, RECLAIM
    }

    /** One operation and its random choices; what it means depends only on the state it meets. */
    record Op(Kind kind, int tree, long a, long b) {
        @Override
        public String toString() {
            return kind + "(" + tree + ", " + a + "L, " + b + "L)";
        }
    }

    @Test
    void everyPageSizeKeepsEveryStructuralInvariant() {
        String replay = System.getProperty("mvbt.seed");
        if (replay != null) {
            check(Long.parseLong(replay), Integer.getInteger("mvbt.pageSize", 4096), ops());
            return;
        }
        int seeds = Integer.getInteger("mvbt.treeSeeds", "long".equals(System.getProperty("mvbt.profile")) ? 400 : 4);
        for (int pageSize : PAGE_SIZES) {
            for (long seed = 1; seed <= seeds; seed++) {
                check(seed * 1_000_003L + pageSize, pageSize, ops());
            }
        }
    }

    /**
     * Issue 27: a range delete emptied the first child of the root (a branch) and left the last
     * one underfull; merging the last into the empty first made a branch whose first entry
     * carried a key, and every later read of the tree failed.
     */
    @Test
    void rangeDeleteThatEmptiesTheFirstBranchKeepsItsFirstEntryKeyless() {
        FakePages pages = new FakePages(4096);
        TreeEditor editor = new TreeEditor(pages.limits);
        TreeRoot root = new TreeRoot();
        // Long keys with a long shared prefix make long separators: few children per branch, three levels.
        int n = 2000;
        TreeEditor.Loader loader = editor.loader(pages, root, 1.0);
        for (int i = 0; i < n; i++) {
            byte[] key = longKey(i);
            loader.add(key, BASE, key.length, new byte[8], BASE, 8);
        }
        loader.finish();
        assertEquals(3, root.depth);
        pages.nextRevision();
        byte[] lo = new byte[0];
        // What remains is a few leaves: the last child of the root, underfull, with more than one child.
        int kept = 40;
        byte[] hi = longKey(n - kept);
        long removed = editor.deleteRange(pages, root, lo, BASE, 0, hi, BASE, hi.length, (p, r, l, i) -> {
        });
        assertEquals(n - kept, removed);
        TreeChecker.check(pages, pages.limits, root, -1, (p, c, r, a) -> {
        });
        TreeCursor cursor = new TreeCursor().reset(pages, root);
        assertEquals(true, cursor.first());
        assertEquals(kept, root.entries);
        assertEquals(2, root.depth);
    }

    private static byte[] longKey(int i) {
        return ("x".repeat(190) + String.format("%010d", i)).getBytes();
    }

    private static int ops() {
        return Integer.getInteger("mvbt.treeOps", 3000);
    }

    static List<Op> generate(long seed, int count) {
        Random r = new Random(seed);
        List<Op> ops = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int x = r.nextInt(1000);
            Kind kind;
            if (x < 380) {
                kind = Kind.PUT;
            } else if (x < 440) {
                kind = Kind.PUT_EXISTING;
            } else if (x < 600) {
                kind = Kind.DELETE;
            } else if (x < 680) {
                kind = Kind.DELETE_RANGE;
            } else if (x < 710) {
                kind = Kind.LOAD_START;
            } else if (x < 860) {
                kind = Kind.LOAD_ADD;
            } else if (x < 890) {
                kind = Kind.LOAD_FINISH;
            } else if (x < 960) {
                kind = Kind.NEXT_REVISION;
            } else {
                kind = Kind.RECLAIM;
            }
            ops.add(new Op(kind, r.nextInt(TREES), r.nextLong(), r.nextLong()));
        }
        return ops;
    }

    private static void check(long seed, int pageSize, int count) {
        List<Op> ops = generate(seed, count);
        Throwable failure = failure(pageSize, ops);
        if (failure == null) {
            return;
        }
        List<Op> minimal = shrink(pageSize, ops);
        StringBuilder text = new StringBuilder("tree model failed: seed " + seed + ", page size " + pageSize
                + " (replay: -Dmvbt.seed=" + seed + " -Dmvbt.pageSize=" + pageSize + "); shrunk from " + ops.size()
                + " to " + minimal.size() + " operations:");
        for (Op op : minimal) {
            text.append("\n  ops.add(new Op(Kind.").append(op).append(");");
        }
        Throwable minimalFailure = failure(pageSize, minimal);
        throw new AssertionError(text.toString(), minimalFailure != null ? minimalFailure : failure);
    }

    private static Throwable failure(int pageSize, List<Op> ops) {
        try {
            new Execution(pageSize).run(ops);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    static List<Op> shrink(int pageSize, List<Op> ops) {
        return Shrink.failing(ops, candidate -> failure(pageSize, candidate) != null);
    }

    /** Runs operations against fake pages and a model; throws on the first difference. */
    static final class Execution implements Detached {
        private final FakePages pages;
        private final TreeLimits limits;
        private final TreeEditor editor;
        private final TreeRoot[] roots = new TreeRoot[TREES];
        private final List<TreeMap<byte[], byte[]>> models = new ArrayList<>();
        private final TreeEditor.Loader[] loaders = new TreeEditor.Loader[TREES];
        private final byte[][] loadedLast = new byte[TREES][];
        /** Detached subtrees, four numbers each, as {@link Detached} gives them. */
        private final ArrayDeque<long[]> detached = new ArrayDeque<>();
        private int step;

        Execution(int pageSize) {
            pages = new FakePages(pageSize);
            limits = pages.limits;
            editor = new TreeEditor(limits);
            for (int t = 0; t < TREES; t++) {
                roots[t] = new TreeRoot();
                models.add(new TreeMap<>(Arrays::compareUnsigned));
            }
        }

        @Override
        public void detach(long pageNo, long revision, int level, boolean inlineOnly) {
            detached.add(new long[] {pageNo, revision, level, inlineOnly ? 1 : 0});
        }

        void run(List<Op> ops) {
            for (Op op : ops) {
                apply(op);
                checkAfter(op);
                step++;
            }
            for (int t = 0; t < TREES; t++) {
                finishLoad(t);
            }
            pages.nextRevision();
            for (int t = 0; t < TREES; t++) {
                checkTree(t, -1);
                verify(t);
            }
            // Everything in use is reached by a tree or waits in a detached subtree.
            while (!detached.isEmpty()) {
                reclaimOne();
            }
            long reached = 0;
            for (int t = 0; t < TREES; t++) {
                long[] counts = TreeEditorModelTest.countPages(pages, roots[t]);
                reached += counts[0] + counts[1] + counts[2];
            }
            assertEquals(pages.pagesInUse(), reached, "pages in use against pages reached (a leak or a double use)");
        }

        private void apply(Op op) {
            int t = op.tree();
            TreeMap<byte[], byte[]> m = models.get(t);
            Random r = new Random(op.a() ^ op.b());
            switch (op.kind()) {
                case PUT, PUT_EXISTING -> {
                    if (loaders[t] != null) {
                        return;
                    }
                    byte[] key = op.kind() == Kind.PUT_EXISTING && !m.isEmpty() ? pick(m, op.a()) : key(r);
                    byte[] value = value(r, key.length);
                    boolean inserted = editor.put(pages, roots[t], key, BASE, key.length, value, BASE, value.length);
                    expect(inserted == !m.containsKey(key), "put reports new=" + inserted);
                    m.put(key, value);
                }
                case DELETE -> {
                    if (loaders[t] != null) {
                        return;
                    }
                    byte[] key = !m.isEmpty() && r.nextInt(4) != 0 ? pick(m, op.a()) : key(r);
                    boolean deleted = editor.delete(pages, roots[t], key, BASE, key.length);
                    expect(deleted == m.containsKey(key), "delete reports found=" + deleted);
                    m.remove(key);
                }
                case DELETE_RANGE -> {
                    if (loaders[t] != null) {
                        return;
                    }
                    byte[][] range = range(m, r);
                    byte[] lo = range[0];
                    byte[] hi = range[1];
                    int order = Arrays.compareUnsigned(lo, hi);
                    if (order >= 0) {
                        return;
                    }
                    var expected = m.subMap(lo, true, hi, false);
                    if (expected.isEmpty()) {
                        // The store's deleteRange never calls the editor for a range without keys.
                        return;
                    }
                    long removed = editor.deleteRange(pages, roots[t], lo, BASE, lo.length, hi, BASE, hi.length, this);
                    expect(removed == expected.size(), "deleteRange removed " + removed + ", model "
                            + expected.size());
                    expected.clear();
                }
                case LOAD_START -> {
                    if (loaders[t] != null || Arrays.stream(loaders).anyMatch(l -> l != null)) {
                        // One loader per editor at a time.
                        return;
                    }
                    double fill = switch (r.nextInt(4)) {
                        case 0 -> 1.0;
                        case 1 -> 0.01;
                        default -> 0.3 + 0.7 * r.nextDouble();
                    };
                    loaders[t] = editor.loader(pages, roots[t], fill);
                    loadedLast[t] = m.isEmpty() ? null : m.lastKey();
                }
                case LOAD_ADD -> {
                    if (loaders[t] == null) {
                        return;
                    }
                    int n = r.nextInt(4) == 0 ? 1 + r.nextInt(300) : 1 + r.nextInt(12);
                    for (int i = 0; i < n; i++) {
                        byte[] key = above(loadedLast[t], r);
                        if (key == null) {
                            return;
                        }
                        byte[] value = value(r, key.length);
                        loaders[t].add(key, BASE, key.length, value, BASE, value.length);
                        m.put(key, value);
                        loadedLast[t] = key;
                    }
                }
                case LOAD_FINISH -> finishLoad(t);
                case NEXT_REVISION -> {
                    // A commit ends every load.
                    for (int i = 0; i < TREES; i++) {
                        finishLoad(i);
                    }
                    for (int i = 0; i < TREES; i++) {
                        checkTree(i, -1);
                    }
                    pages.nextRevision();
                }
                case RECLAIM -> {
                    for (int i = 0; i < 1 + (int) (op.a() & 7) && !detached.isEmpty(); i++) {
                        reclaimOne();
                    }
                }
            }
        }

        private void reclaimOne() {
            long[] d = detached.poll();
            editor.reclaimStep(pages, d[0], d[1], (int) d[2], d[3] != 0, this);
        }

        private void finishLoad(int t) {
            if (loaders[t] != null) {
                loaders[t].finish();
                loaders[t] = null;
            }
        }

        private void checkAfter(Op op) {
            for (int t = 0; t < TREES; t++) {
                if (loaders[t] == null) {
                    // What this revision wrote, against what earlier ones wrote.
                    checkTree(t, pages.revision() - 1);
                    expect(roots[t].entries == models.get(t).size(), "tree " + t + " counts " + roots[t].entries
                            + ", model " + models.get(t).size());
                }
            }
            if (step % 50 == 0 || op.kind() == Kind.DELETE_RANGE || op.kind() == Kind.LOAD_FINISH) {
                for (int t = 0; t < TREES; t++) {
                    if (loaders[t] == null) {
                        checkTree(t, -1);
                        verify(t);
                    }
                }
            }
        }

        private void checkTree(int t, long since) {
            try {
                TreeChecker.check(pages, limits, roots[t], since, (pageNo, n, revision, addr) -> {
                });
            } catch (RuntimeException e) {
                throw new AssertionError("step " + step + ": tree " + t + " (since " + since + "): " + e.getMessage(),
                        e);
            }
        }

        /** The tree reads as the model, both ways, with positions. */
        private void verify(int t) {
            TreeCursor c = new TreeCursor().reset(pages, roots[t]);
            boolean ok = c.first();
            long position = 0;
            for (Map.Entry<byte[], byte[]> e : models.get(t).entrySet()) {
                expect(ok, "tree " + t + ": cursor ended early");
                expect(Arrays.equals(bytes(c.key()), e.getKey()), "tree " + t + ": key at " + position);
                expect(Arrays.equals(bytes(c.value()), e.getValue()), "tree " + t + ": value at " + position);
                expect(c.position() == position, "tree " + t + ": position " + position);
                ok = c.next();
                position++;
            }
            expect(!ok, "tree " + t + ": cursor runs past the model");
            ok = c.last();
            for (byte[] k : models.get(t).descendingKeySet()) {
                expect(ok, "tree " + t + ": backward cursor ended early");
                expect(Arrays.equals(bytes(c.key()), k), "tree " + t + ": backward key");
                ok = c.prev();
            }
            expect(!ok, "tree " + t + ": backward cursor runs past the model");
        }

        private void expect(boolean condition, String what) {
            if (!condition) {
                throw new AssertionError("step " + step + ": " + what);
            }
        }

        // -------------------------------------------------------------- data

        /** A key length over the whole allowed range, weighted to its edges. */
        private int keyLength(Random r) {
            int max = limits.maxKeySize;
            return switch (r.nextInt(10)) {
                case 0 -> r.nextInt(2);
                case 1 -> max;
                case 2 -> max - 1 - r.nextInt(3);
                case 3 -> r.nextInt(max + 1);
                case 4 -> max / 2 + r.nextInt(max / 2);
                default -> 1 + r.nextInt(24);
            };
        }

        /** A key from a small alphabet, so that keys share prefixes and page prefixes form. */
        private byte[] key(Random r) {
            byte[] k = new byte[keyLength(r)];
            int alphabet = r.nextBoolean() ? 3 : 256;
            int shared = r.nextInt(k.length + 1);
            for (int i = 0; i < k.length; i++) {
                k[i] = i < shared && r.nextInt(8) != 0 ? (byte) 'a' : (byte) (alphabet == 3 ? 'a' + r.nextInt(3)
                        : r.nextInt(256));
            }
            return k;
        }

        /** A value length across the inline/overflow boundary for this key, and beyond one run. */
        private byte[] value(Random r, int keyLength) {
            int inlineMax = limits.maxInlineEntry - Node.LEAF_ENTRY_HEADER - keyLength;
            int pageSize = limits.pageSize;
            int length = switch (r.nextInt(12)) {
                case 0 -> 0;
                case 1 -> Math.max(0, inlineMax - r.nextInt(3));
                case 2 -> inlineMax + 1 + r.nextInt(3);
                case 3 -> pageSize + r.nextInt(3 * pageSize);
                case 4 -> r.nextInt(20) == 0 ? 64 * pageSize + r.nextInt(pageSize) : r.nextInt(Math.max(1, inlineMax));
                default -> r.nextInt(Math.max(1, Math.min(inlineMax, 200)));
            };
            byte[] v = new byte[Math.max(0, length)];
            r.nextBytes(v);
            return v;
        }

        /** A key above {@code last} with a length drawn as usual, or null if none is left. */
        private byte[] above(byte[] last, Random r) {
            return last == null ? key(r) : AscendingKeys.above(last, keyLength(r), limits.maxKeySize, r);
        }

        private static byte[] pick(TreeMap<byte[], byte[]> m, long choice) {
            byte[] k = m.ceilingKey(bytesOf(choice));
            return k != null ? k : m.firstKey();
        }

        private static byte[] bytesOf(long x) {
            byte[] b = new byte[1 + (int) ((x >>> 60) & 7)];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (x >>> (8 * i));
            }
            return b;
        }

        /** Ranges of every width: empty, one key, within a leaf, runs, whole subtrees, a prefix, a suffix, all. */
        private byte[][] range(TreeMap<byte[], byte[]> m, Random r) {
            if (m.isEmpty()) {
                return new byte[][] {key(r), key(r)};
            }
            byte[][] keys = m.keySet().toArray(new byte[0][]);
            int i = r.nextInt(keys.length);
            byte[] max = new byte[limits.maxKeySize];
            Arrays.fill(max, (byte) 0xff);
            return switch (r.nextInt(9)) {
                case 0 -> new byte[][] {keys[i], keys[i]};
                case 1 -> new byte[][] {keys[i], i + 1 < keys.length ? keys[i + 1] : max};
                case 2 -> new byte[][] {new byte[0], max};
                case 3 -> new byte[][] {new byte[0], keys[i]};
                case 4 -> new byte[][] {keys[i], max};
                case 5 -> new byte[][] {keys[i], keys[Math.min(keys.length - 1, i + 1 + r.nextInt(8))]};
                case 6 -> new byte[][] {key(r), key(r)};
                default -> {
                    byte[] lo = keys[i];
                    byte[] hi = keys[Math.min(keys.length - 1, i + r.nextInt(keys.length))];
                    // Bounds between keys as well as on them.
                    if (r.nextBoolean()) {
                        lo = Arrays.copyOf(lo, Math.min(limits.maxKeySize, lo.length + 1));
                    }
                    if (r.nextBoolean() && hi.length > 0) {
                        hi = Arrays.copyOf(hi, hi.length - 1);
                    }
                    yield Arrays.compareUnsigned(lo, hi) <= 0 ? new byte[][] {lo, hi} : new byte[][] {hi, lo};
                }
            };
        }

        private static byte[] bytes(DirectBuffer buffer) {
            byte[] out = new byte[buffer.capacity()];
            buffer.getBytes(0, out);
            return out;
        }
    }
}
