// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Path;

/**
 * A process for {@link NamedRevisionProcessesTest}.
 * <ul>
 * <li>{@code retain PATH NAME}: a writer that takes turns (see {@link WriterChild}): commits the next
 * round, keeps the newest revision under NAME, commits 30 more rounds and prints
 * {@code RETAINED revision round}.
 * <li>{@code read PATH NAME}: opens the store read-only and the revision kept under NAME, checks it
 * against the writer's invariant and prints {@code READ revision round}.
 * </ul>
 * Prints {@code FAIL why} on failure.
 */
public final class NamedChild {
    private NamedChild() {
    }

    public static void main(String[] args) {
        Path path = Path.of(args[1]);
        String name = args[2];
        try {
            if (args[0].equals("retain")) {
                try (Store store = Store.open(path, WriterChild.options(Durability.NORMAL))) {
                    long round = WriterChild.commitNext(store);
                    long revision = store.retain(name);
                    for (int i = 0; i < 30; i++) {
                        WriterChild.commitNext(store);
                    }
                    System.out.println("RETAINED " + revision + " " + round);
                }
            } else {
                try (Store store = Store.openReadOnly(path); Snapshot s = store.beginRead(name)) {
                    long round = ProcessReadersTest.verify(s, store.tree("fixed"), store.tree("churn"));
                    System.out.println("READ " + s.revision() + " " + round);
                }
            }
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }
}
