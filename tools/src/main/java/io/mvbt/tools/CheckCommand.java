// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.mvbt.pagestore.PageStore;
import io.mvbt.revisions.CheckReport;
import io.mvbt.revisions.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The integrity checker; the exit status says clean (0) or damaged (1). */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Check every page, key order, counts and free space, and that the newest revisions verify."
                + " Exit status 0: clean; 1: damaged; 4: cannot open.")
final class CheckCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Option(names = "--json", description = "Print one JSON object instead (for scripts and monitoring).")
    boolean json;

    @Override
    public Integer call() {
        long started = System.nanoTime();
        CheckReport report;
        boolean besideWriter;
        List<String> dropped;
        try (Store s = StoreFiles.openExisting(store); Progress progress = new Progress("check", s.stats().pagesInFile())) {
            besideWriter = s.isReadOnly();
            dropped = s.droppedRevisions();
            report = s.check(progress::update);
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        // The checker walks what the revision reaches; the meta slots are in use too (recovery verified
        // them), and counted here so that the figure is stat's "in use".
        long pagesInUse = report.pagesChecked() + PageStore.META_SLOTS;
        boolean clean = dropped.isEmpty() && report.ok();
        if (json) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("store", store.toString());
            out.put("revision", report.revision());
            out.put("pagesChecked", report.pagesChecked());
            out.put("pagesInUse", pagesInUse);
            out.put("trees", report.trees());
            out.put("entries", report.entries());
            out.put("millis", ms);
            out.put("besideWriter", besideWriter);
            out.put("droppedRevisions", dropped);
            out.put("problems", report.problems());
            out.put("clean", clean);
            System.out.println(Json.write(out));
            return clean ? ExitCodes.OK : ExitCodes.DAMAGED;
        }
        System.out.printf("revision %,d: %s in use (%,d meta), %s, %s checked in %,d ms%n", report.revision(),
                Plural.of(pagesInUse, "page"), PageStore.META_SLOTS, Plural.of(report.trees(), "tree"),
                Plural.entries(report.entries()), ms);
        dropped.forEach(d -> System.out.println("problem: a newer " + d));
        report.problems().forEach(p -> System.out.println("problem: " + p));
        if (!dropped.isEmpty()) {
            System.out.printf("damaged: revision %,d is the newest that can be read; %s%n", report.revision(),
                    StoreFiles.DROPPED_ADVICE);
            return ExitCodes.DAMAGED;
        }
        if (report.ok()) {
            System.out.println(besideWriter ? "clean (trees and free map; the free space is the writer's to check)"
                    : "clean");
            return ExitCodes.OK;
        }
        System.out.printf("damaged: %s%n", Plural.of(report.problems().size(), "problem"));
        return ExitCodes.DAMAGED;
    }
}
