// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.agrona.DirectBuffer;

/**
 * The diff of two models (tree name to a TreeMap of entries), as {@link Snapshot#diff} must report
 * it, and a check that it does, event for event.
 */
final class DiffModel {
    private DiffModel() {
    }

    /** A created or dropped tree, beside the {@link Change}s of keys. */
    record TreeEvent(String what, String tree, long entries) {
    }

    /** Diffs every tree from {@code a} to {@code b} and fails on the first event that differs from the models'. */
    static void check(Snapshot a, Map<String, TreeMap<byte[], byte[]>> ma, Snapshot b,
            Map<String, TreeMap<byte[], byte[]>> mb, String where) {
        List<Object> actual = new ArrayList<>();
        DiffStats stats = a.diff(b, recorder(actual));
        List<Object> expected = expected(ma, mb);
        compare(expected, actual, where + ": diff of every tree from revision " + a.revision() + " to " + b.revision());
        if (stats.changes() != expected.size()) {
            throw new AssertionError(where + ": the diff counts " + stats.changes() + " changes, reported "
                    + expected.size());
        }
    }

    /** Diffs one tree (which at least one side has) from {@code a} to {@code b}. */
    static void checkTree(Snapshot a, Map<String, TreeMap<byte[], byte[]>> ma, Snapshot b,
            Map<String, TreeMap<byte[], byte[]>> mb, Tree tree, String where) {
        List<Object> actual = new ArrayList<>();
        a.diff(b, tree, recorder(actual));
        List<Object> expected = new ArrayList<>();
        treeDiff(tree.name(), ma.get(tree.name()), mb.get(tree.name()), expected);
        compare(expected, actual, where + ": diff of tree '" + tree.name() + "' from revision " + a.revision()
                + " to " + b.revision());
    }

    private static DiffVisitor recorder(List<Object> into) {
        return new DiffVisitor() {
            @Override
            public void treeCreated(String tree) {
                into.add(new TreeEvent("created", tree, 0));
            }

            @Override
            public void treeDropped(String tree, long entries) {
                into.add(new TreeEvent("dropped", tree, entries));
            }

            @Override
            public void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue) {
                into.add(new Change(tree, DiffTest.copy(key), DiffTest.copy(oldValue), DiffTest.copy(newValue)));
            }
        };
    }

    static List<Object> expected(Map<String, TreeMap<byte[], byte[]>> ma, Map<String, TreeMap<byte[], byte[]>> mb) {
        // Trees in catalog order: by the bytes of their UTF-8 names.
        TreeSet<byte[]> names = new TreeSet<>(Arrays::compareUnsigned);
        for (String name : ma.keySet()) {
            names.add(name.getBytes(StandardCharsets.UTF_8));
        }
        for (String name : mb.keySet()) {
            names.add(name.getBytes(StandardCharsets.UTF_8));
        }
        List<Object> out = new ArrayList<>();
        for (byte[] bytes : names) {
            String name = new String(bytes, StandardCharsets.UTF_8);
            treeDiff(name, ma.get(name), mb.get(name), out);
        }
        return out;
    }

    private static void treeDiff(String name, TreeMap<byte[], byte[]> a, TreeMap<byte[], byte[]> b, List<Object> out) {
        if (b == null) {
            out.add(new TreeEvent("dropped", name, a.size()));
            return;
        }
        if (a == null) {
            out.add(new TreeEvent("created", name, 0));
            a = ModelHarness.newMap();
        }
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        keys.addAll(a.keySet());
        keys.addAll(b.keySet());
        for (byte[] key : keys) {
            byte[] before = a.get(key);
            byte[] after = b.get(key);
            if (!Arrays.equals(before, after)) {
                out.add(new Change(name, key, before, after));
            }
        }
    }

    private static void compare(List<Object> expected, List<Object> actual, String what) {
        for (int i = 0; i < Math.max(expected.size(), actual.size()); i++) {
            Object e = i < expected.size() ? expected.get(i) : null;
            Object a = i < actual.size() ? actual.get(i) : null;
            if (e == null || !e.equals(a)) {
                throw new AssertionError(what + ": event " + i + " of " + expected.size() + " expected " + e
                        + ", reported " + a + " (" + actual.size() + " reported)");
            }
        }
    }
}
