package io.mvbt.tools;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.mvbt.revisions.CheckReport;
import io.mvbt.revisions.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** The integrity checker; the exit status says clean (0) or damaged (1). */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Check every page, key order, counts and free space. Exit status 0: clean; 1: damaged.")
final class CheckCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Override
    public Integer call() {
        long started = System.nanoTime();
        CheckReport report;
        boolean besideWriter;
        try (Store s = StoreFiles.openExisting(store)) {
            besideWriter = s.isReadOnly();
            report = s.check();
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        System.out.printf("revision %,d: %,d pages, %d trees, %,d entries checked in %,d ms%n", report.revision(),
                report.pagesChecked(), report.trees(), report.entries(), ms);
        if (report.ok()) {
            System.out.println(besideWriter ? "clean (trees and free map; the free space is the writer's to check)"
                    : "clean");
            return ExitCodes.OK;
        }
        report.problems().forEach(p -> System.out.println("problem: " + p));
        System.out.printf("damaged: %d problems%n", report.problems().size());
        return ExitCodes.DAMAGED;
    }
}
