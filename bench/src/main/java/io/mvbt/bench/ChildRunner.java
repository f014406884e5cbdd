// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.io.PrintStream;
import java.nio.file.Path;

import io.mvbt.bench.peers.Peer;

/** Runs one suite on one store inside a child JVM: a warm-up run, then the measured one. */
final class ChildRunner {
    /** Exit status of a child whose reads did not match what was written. */
    static final int VERIFICATION_FAILED = 3;

    private ChildRunner() {
    }

    static int run(BenchOptions o) {
        if (o.peers.size() != 1 || o.suites.size() != 1) {
            throw new IllegalArgumentException("a child runs one peer and one suite");
        }
        Peer peer = o.peers.get(0);
        Suite suite = o.suites.get(0);
        PrintStream out = System.out;
        out.println(Protocol.setting(peer.settings(o.mode)));
        Workload workload = new Workload();
        Path base = o.dir;
        try {
            if (o.warmup > 0) {
                System.err.println("  [" + peer.id() + "] warm-up: " + suite.name() + " with " + o.warmup + " entries");
                RunContext warm = new RunContext(peer, o.mode, base.resolve("warmup"), o.warmup,
                        Math.min(o.reads, o.warmup), o.threads, Math.min(1, o.seconds), workload, null);
                suite.run(warm);
                Disk.delete(base.resolve("warmup"));
            }
            RunContext ctx = new RunContext(peer, o.mode, base.resolve("run"), o.entries, o.reads, o.threads,
                    o.seconds, workload, out);
            suite.run(ctx);
            Disk.delete(base.resolve("run"));
            out.flush();
            return 0;
        } catch (VerificationException e) {
            System.err.println("VERIFICATION FAILED [" + peer.id() + " " + suite.name() + "]: " + e.getMessage());
            e.printStackTrace();
            return VERIFICATION_FAILED;
        } catch (RuntimeException | Error e) {
            System.err.println("FAILED [" + peer.id() + " " + suite.name() + "]: " + e);
            e.printStackTrace();
            return 1;
        }
    }
}
