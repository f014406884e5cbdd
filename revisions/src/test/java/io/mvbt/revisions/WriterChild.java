// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A writer process for {@link ProcessWritersTest}, one of several that take turns on a store.
 * Each transaction reads the round the store holds and writes the next (see
 * {@link ProcessReadersTest#commit}), so a transaction that started from anything but the newest
 * commit breaks the invariant or the count.
 * <ul>
 * <li>{@code turns PATH DURABILITY SECONDS}: commits for that long, verifying a snapshot every few
 * commits; prints {@code OK commits snapshots}, or {@code FAIL why}.
 * <li>{@code loop PATH}: commits with {@link Durability#SYNC} until killed, printing
 * {@code committed ROUND} after each commit returns.
 * <li>{@code stall PATH}: commits once, then opens a transaction, writes into it, prints
 * {@code INSIDE round} and waits to be killed.
 * </ul>
 */
public final class WriterChild {
    private WriterChild() {
    }

    static StoreOptions options(Durability durability) {
        return StoreOptions.defaults().sharedWriters(true).durability(durability)
                .checkpointInterval(Duration.ofMillis(50)).writeTimeout(Duration.ofSeconds(30));
    }

    /** Commits the round after the newest; returns it. */
    static long commitNext(Store store) {
        try (WriteTxn tx = store.beginWrite()) {
            long round = ProcessReadersTest.round(tx, tx.createTreeIfAbsent("fixed")) + 1;
            ProcessReadersTest.write(tx, round);
            tx.commit();
            return round;
        }
    }

    public static void main(String[] args) {
        Path path = Path.of(args[1]);
        try {
            switch (args[0]) {
                case "turns" -> turns(path, Durability.valueOf(args[2]), Long.parseLong(args[3]));
                case "loop" -> loop(path);
                case "stall" -> stall(path);
                case "grow" -> grow(path);
                default -> throw new IllegalArgumentException(args[0]);
            }
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    /**
     * {@code grow PATH}: syncs a small store, prints {@code synced BYTES} (the file's length then),
     * commits in {@link Durability#NORMAL} until the file has grown past that by several MiB with no
     * checkpoint since, prints {@code grown} and waits to be killed.
     */
    private static void grow(Path path) throws Exception {
        Store store = Store.open(path, StoreOptions.defaults().durability(Durability.NORMAL)
                .checkpointInterval(Duration.ofMinutes(10)));
        try (WriteTxn tx = store.beginWrite()) {
            tx.put(tx.createTreeIfAbsent("t"), new byte[] {1}, new byte[] {1});
            tx.commit();
        }
        store.sync();
        long synced = java.nio.file.Files.size(path);
        System.out.println("synced " + synced);
        for (int i = 0; i < 60_000; i++) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(tx.createTreeIfAbsent("t"), String.format("key-%08d", i).getBytes(), new byte[100]);
                tx.commit();
            }
        }
        System.out.println("grown " + java.nio.file.Files.size(path));
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void turns(Path path, Durability durability, long seconds) {
        try (Store store = Store.open(path, options(durability))) {
            long deadline = System.nanoTime() + seconds * 1_000_000_000L;
            long commits = 0;
            long snapshots = 0;
            long lastRound = -1;
            while (System.nanoTime() < deadline) {
                long round = commitNext(store);
                if (round <= lastRound) {
                    throw new AssertionError("committed round " + round + " after round " + lastRound);
                }
                lastRound = round;
                commits++;
                if (commits % 8 == 0) {
                    try (Snapshot s = store.beginRead()) {
                        long seen = ProcessReadersTest.verify(s, store.tree("fixed"), store.tree("churn"));
                        if (seen < round) {
                            throw new AssertionError("a snapshot after round " + round + " saw round " + seen);
                        }
                        snapshots++;
                    }
                }
            }
            System.out.println("OK " + commits + " " + snapshots);
        }
    }

    private static void loop(Path path) {
        Store store = Store.open(path, options(Durability.SYNC));
        while (true) {
            System.out.println("committed " + commitNext(store));
            System.out.flush();
        }
    }

    private static void stall(Path path) throws InterruptedException {
        Store store = Store.open(path, options(Durability.SYNC));
        commitNext(store);
        WriteTxn tx = store.beginWrite();
        long round = ProcessReadersTest.round(tx, tx.createTreeIfAbsent("fixed")) + 1;
        for (long r = round; r < round + 50; r++) {
            ProcessReadersTest.write(tx, r);
        }
        System.out.println("INSIDE " + round);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
