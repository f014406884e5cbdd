// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static io.mvbt.testkit.TestKeys.key;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A deterministic sequence of commits for crash tests: commit i changes a few keys in a way that
 * depends only on i, and records i under the key "counter". The state after commit i is known, so
 * a store found after a crash must equal exactly the state of the commit its counter names.
 */
final class CrashWorkload {
    static final String TREE = "crash";
    static final byte[] COUNTER = "counter".getBytes(StandardCharsets.US_ASCII);

    private CrashWorkload() {
    }

    /** Applies commit {@code i} to a transaction and to a model (either may be null). */
    static void apply(long i, WriteTxn tx, Tree tree, TreeMap<byte[], byte[]> model) {
        Random r = new Random(i * 0x9E3779B97F4A7C15L);
        int puts = 1 + r.nextInt(8);
        for (int j = 0; j < puts; j++) {
            byte[] k = key(r.nextInt(2000));
            byte[] v = new byte[r.nextInt(50) == 0 ? 20_000 + r.nextInt(20_000) : r.nextInt(120)];
            r.nextBytes(v);
            if (tx != null) {
                tx.put(tree, k, v);
            }
            if (model != null) {
                model.put(k, v);
            }
        }
        if (r.nextInt(3) == 0) {
            byte[] k = key(r.nextInt(2000));
            if (tx != null) {
                tx.delete(tree, k);
            }
            if (model != null) {
                model.remove(k);
            }
        }
        byte[] counter = Long.toString(i).getBytes(StandardCharsets.US_ASCII);
        if (tx != null) {
            tx.put(tree, COUNTER, counter);
        }
        if (model != null) {
            model.put(COUNTER, counter);
        }
    }

    /** The state after commits 1 to {@code last}. */
    static TreeMap<byte[], byte[]> model(long last) {
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        for (long i = 1; i <= last; i++) {
            apply(i, null, null, model);
        }
        return model;
    }

    /** The counter a store holds, 0 for a fresh store. */
    static long counter(ReadView view, Tree tree) {
        if (!view.hasTree(tree)) {
            return 0;
        }
        byte[] c = view.get(tree, COUNTER);
        return c == null ? 0 : Long.parseLong(new String(c, StandardCharsets.US_ASCII));
    }

    /** Whether a view holds exactly {@code model}. */
    static String difference(ReadView view, Tree tree, TreeMap<byte[], byte[]> model) {
        if (!view.hasTree(tree)) {
            return model.isEmpty() ? null : "tree missing";
        }
        if (view.count(tree) != model.size()) {
            return "count " + view.count(tree) + " != " + model.size();
        }
        try (Cursor c = view.cursor(tree)) {
            boolean ok = c.first();
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                if (!ok) {
                    return "scan ended early";
                }
                if (!Arrays.equals(c.keyBytes(), e.getKey()) || !Arrays.equals(c.valueBytes(), e.getValue())) {
                    return "entry differs at key " + new String(e.getKey(), StandardCharsets.US_ASCII);
                }
                ok = c.next();
            }
            return ok ? "scan longer than the model" : null;
        }
    }
}
