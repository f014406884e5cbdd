// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.Arrays;

import io.mvbt.bench.directory.DirectoryBench;

/**
 * Entry point of {@code mvbt-bench.jar}: the side-by-side comparison (see {@link BenchOptions#usage}),
 * {@code jmh ...} for the JMH microbenchmarks, {@code directory ...} for the directory search
 * benchmark against SQLite (see {@link DirectoryBench}), or {@code redis-readers ...} for reader
 * processes on a store on a Redis Cluster (see {@link io.mvbt.bench.redis.ReaderScaleOut}), or
 * {@code redis-modes ...} for the Redis store's modes beside a file store (see
 * {@link io.mvbt.bench.redis.RedisModes}), or {@code diff ...} for the cost of a diff of two revisions against
 * a merge scan of both (see {@link DiffBench}).
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("jmh")) {
            org.openjdk.jmh.Main.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("redis-readers")) {
            System.exit(io.mvbt.bench.redis.ReaderScaleOut.main(Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("redis-modes")) {
            System.exit(io.mvbt.bench.redis.RedisModes.main(Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("diff")) {
            System.exit(DiffBench.main(Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("directory")) {
            System.exit(DirectoryBench.main(Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        BenchOptions o;
        try {
            o = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (e.getMessage().isEmpty()) {
                System.out.print(BenchOptions.usage());
                System.exit(0);
                return;
            }
            System.err.println(e.getMessage());
            System.err.print(BenchOptions.usage());
            System.exit(2);
            return;
        }
        System.exit(o.child ? ChildRunner.run(o) : Orchestrator.run(o));
    }
}
