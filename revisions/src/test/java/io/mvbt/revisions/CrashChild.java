// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Path;

/**
 * The process a crash test kills: opens the store (arguments: path, durability, checkpoint
 * interval in ms, and optionally the shadow directory and {@code --redo-log}), continues the {@link CrashWorkload} from
 * the counter it finds, and prints "committed N" after each commit returns.
 */
public final class CrashChild {
    private CrashChild() {
    }

    public static void main(String[] args) {
        Path path = Path.of(args[0]);
        Durability durability = Durability.valueOf(args[1]);
        StoreOptions options = StoreOptions.defaults().durability(durability)
                .checkpointInterval(java.time.Duration.ofMillis(Long.parseLong(args[2])));
        for (int i = 3; i < args.length; i++) {
            options = args[i].equals("--redo-log") ? options.redoLog(true) : options.shadowDirectory(Path.of(args[i]));
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
                    tx.commit();
                }
                System.out.println("committed " + i);
                System.out.flush();
            }
        }
    }
}
