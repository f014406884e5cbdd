// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import io.mvbt.StoreLockedException;
import io.mvbt.revisions.Store;

/** Keeps TARGET equal to SOURCE through a change feed of SOURCE (see {@link Replicator}). */
@Command(name = "replicate", mixinStandardHelpOptions = true,
        description = {"Keep TARGET (created if missing) equal to SOURCE: apply what changed in SOURCE since the"
                + " last batch to TARGET in one synced transaction, then move SOURCE's change feed on; again every"
                + " --interval until stopped, or once with --once. A restart, even after kill -9, resumes where the"
                + " feed stands.",
            "Moving the feed needs SOURCE's writer: a store another process writes can be replicated only if every"
                + " process that writes it (this one too: --shared-writers) opens it with shared writers.",
            "The feed's position is a named revision of SOURCE (feed:NAME@REVISION): while no replicate runs it"
                + " keeps what SOURCE changed since from being reused."})
final class ReplicateCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SOURCE", description = "The store to copy from.")
    Path source;

    @Parameters(index = "1", paramLabel = "TARGET", description = "The replica (a new file, or one this feed made).")
    Path target;

    @Option(names = "--feed", paramLabel = "NAME", description = "The change feed of SOURCE to follow (default: ${DEFAULT-VALUE}).")
    String feed = "replica";

    @Option(names = "--once", description = "Apply one batch (everything committed so far) and exit.")
    boolean once;

    @Option(names = "--interval", paramLabel = "MS", description = "Milliseconds between polls when nothing changed"
            + " (default: ${DEFAULT-VALUE}).")
    long intervalMillis = 200;

    @Option(names = "--shared-writers", description = "Open SOURCE with shared writers (StoreOptions.sharedWriters),"
            + " as its other writers do.")
    boolean sharedWriters;

    @Option(names = "--json", description = "One JSON object per batch: {\"reached\", \"changes\"}.")
    boolean json;

    private volatile boolean stopping;

    @Override
    public Integer call() throws InterruptedException {
        StoreFiles.requireStore(source, null);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            // SIGTERM or ^C: let the batch under way finish and the stores close.
            stopping = true;
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (!once) {
            Runtime.getRuntime().addShutdownHook(hook);
        }
        try (Store from = openSource(); Store to = Store.open(target, StoreFiles.options())) {
            Replicator replicator = new Replicator(from, to, feed);
            long last = Long.MIN_VALUE;
            do {
                long before = replicator.changesApplied();
                long reached = replicator.replicateOnce();
                if (reached != last) {
                    report(reached, replicator.changesApplied() - before);
                    last = reached;
                } else if (!once) {
                    Thread.sleep(intervalMillis);
                }
            } while (!once && !stopping);
        } finally {
            stopped.countDown();
            if (!once && !stopping) {
                // Stopped by a failure, not a signal: the hook has nothing left to wait for.
                Runtime.getRuntime().removeShutdownHook(hook);
            }
        }
        StoreFiles.requireWritten(System.out);
        return ExitCodes.OK;
    }

    private Store openSource() {
        try {
            return Store.open(source, StoreFiles.options().sharedWriters(sharedWriters));
        } catch (StoreLockedException e) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, e.getMessage() + "; moving a change feed needs the"
                    + " writer: open SOURCE with shared writers in every process that writes it (and pass"
                    + " --shared-writers), or follow the feed inside the writing process (Store.changeFeed)");
        }
    }

    private void report(long reached, long changes) {
        if (json) {
            Map<String, Object> batch = new LinkedHashMap<>();
            batch.put("reached", reached);
            batch.put("changes", changes);
            System.out.println(Json.write(batch));
        } else {
            System.out.println("source revision " + reached + ": " + Plural.of(changes, "change") + " applied");
        }
        System.out.flush();
    }
}
