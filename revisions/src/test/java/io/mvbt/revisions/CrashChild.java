// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Path;

/**
 * The process a crash test kills: opens the store (arguments: path, durability, checkpoint
 * interval in ms, and optionally the shadow directory, {@code --redo-log} and {@code --named}), continues the
 * {@link CrashWorkload} from the counter it finds, and prints "committed N" after each commit returns. With
 * {@code --named}, every commit {@link #NAMED_EVERY}th commit i also retains its revision as {@link #name}(i) and
 * releases the name of commit i - {@link #NAMED_WINDOW}.
 */
public final class CrashChild {
    /** Commits that retain their revision. */
    static final long NAMED_EVERY = 10;
    /** How many commits a name outlives before the commit that releases it. */
    static final long NAMED_WINDOW = 50;

    private CrashChild() {
    }

    /** The name commit {@code i} keeps its revision under. */
    static String name(long i) {
        return "commit-" + i;
    }

    public static void main(String[] args) {
        Path path = Path.of(args[0]);
        Durability durability = Durability.valueOf(args[1]);
        StoreOptions options = StoreOptions.defaults().durability(durability)
                .checkpointInterval(java.time.Duration.ofMillis(Long.parseLong(args[2])));
        boolean named = false;
        for (int i = 3; i < args.length; i++) {
            if (args[i].equals("--named")) {
                named = true;
            } else {
                options = args[i].equals("--redo-log") ? options.redoLog(true) : options.shadowDirectory(Path.of(args[i]));
            }
        }
        try (Store store = Store.open(path, options)) {
            Tree tree = store.tree(CrashWorkload.TREE);
            long next;
            try (Snapshot s = store.beginRead()) {
                next = CrashWorkload.counter(s, tree) + 1;
            }
            System.out.println("ready " + (next - 1));
            System.out.flush();
            for (long i = next; ; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    Tree t = tx.createTreeIfAbsent(CrashWorkload.TREE);
                    CrashWorkload.apply(i, tx, t, null);
                    if (named && i % NAMED_EVERY == 0) {
                        tx.retain(name(i));
                        if (i > NAMED_WINDOW) {
                            tx.release(name(i - NAMED_WINDOW));
                        }
                    }
                    tx.commit();
                }
                System.out.println("committed " + i);
                System.out.flush();
            }
        }
    }
}
