// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A reader process for {@link ProcessReadersTest}: opens a store read-only beside its writer.
 * {@code verify PATH SECONDS}: opens snapshot after snapshot, checking each against the writer's
 * invariant (see {@link ProcessReadersTest#commit}), and prints {@code OK snapshots revisions last}
 * or {@code FAIL why}. {@code hold PATH}: opens one snapshot, prints {@code HOLDING revision value},
 * and waits to be killed.
 */
public final class ReaderChild {
    private ReaderChild() {
    }

    public static void main(String[] args) throws Exception {
        Path path = Path.of(args[1]);
        try (Store store = Store.openReadOnly(path)) {
            if (args[0].equals("hold")) {
                Snapshot s = store.beginRead();
                System.out.println("HOLDING " + s.revision() + " " + round(s, store.tree("fixed")));
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            long deadline = System.nanoTime() + Long.parseLong(args[2]) * 1_000_000_000L;
            long snapshots = 0;
            long revisions = 0;
            long lastRound = -1;
            long lastRevision = -1;
            while (System.nanoTime() < deadline) {
                try (Snapshot s = store.beginRead()) {
                    long round = ProcessReadersTest.verify(s, store.tree("fixed"), store.tree("churn"));
                    if (round < lastRound || s.revision() < lastRevision) {
                        throw new AssertionError("went back from round " + lastRound + " at revision " + lastRevision
                                + " to round " + round + " at revision " + s.revision());
                    }
                    if (s.revision() != lastRevision) {
                        revisions++;
                    }
                    lastRound = round;
                    lastRevision = s.revision();
                    snapshots++;
                }
            }
            System.out.println("OK " + snapshots + " " + revisions + " " + lastRound);
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static long round(Snapshot s, Tree fixed) {
        return ByteBuffer.wrap(s.get(fixed, ProcessReadersTest.key(0))).getLong();
    }
}
