// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mvbt partition, in both its modes (with {@link SnapshotOperationManager}, and dropped into a
 * stock server under ApacheDS's own operation manager and its lock), beside ApacheDS's JDBM
 * partition (the default, with its server-wide lock, as shipped) and its Mavibot partition, and
 * both stock partitions without the lock, in one run: the 2014 scenario, one writer with five
 * ONELEVEL readers, and SearchPerfIT's search rates. The mvbt partition must be correct in both
 * modes; what the others do is reported (even with the lock, a stock
 * search fetches its entries after the lock is released, so it does not read one state). The
 * report is printed and written to target/apacheds-comparison.txt. Sizes follow mvbt.profile;
 * docs/apacheds.md gives the command of the long run.
 */
class PeerComparisonTest {
    private static final boolean LONG = "long".equals(System.getProperty("mvbt.profile"));

    @TempDir
    Path directory;

    @Test
    void mvbtBesideJdbmAndMavibot() throws Exception {
        int clients = 20;
        int perClient = LONG ? 100 : 10;
        int rounds = LONG ? 5 : 1;
        int writerEntries = LONG ? 2500 : 100;
        int searchEntries = LONG ? 10_000 : 300;
        long millis = LONG ? 10_000 : 1_000;
        List<String> report = new ArrayList<>();
        report.add(String.format("ApacheDS 2.0.0.AM27 over LDAP, profile %s: %d clients x %d entries x %d rounds;"
                + " 1 writer (%d entries) + 5 ONELEVEL readers; searches over %d entries, %d ms each",
                LONG ? "long" : "short", clients, perClient, rounds, writerEntries, searchEntries, millis));
        for (DirectoryServer.Kind kind : kinds()) {
            Path home = Files.createDirectories(directory.resolve(kind.name()));
            List<String> lines = new ArrayList<>();
            try (DirectoryServer server = DirectoryServer.start(kind, home, true)) {
                lines.add(run(kind, "2014 scenario", () -> Workloads.clientsAddSearchDelete(server.port(), clients,
                        perClient, rounds)));
                lines.add(run(kind, "writer+readers", () -> Workloads.writerAndOneLevelReaders(server.port(),
                        writerEntries, 5)));
                lines.add(run(kind, "searches", () -> SearchRates.measure(server.port(), searchEntries, millis)));
            } catch (Exception e) {
                if (kind.mvbt()) {
                    throw new AssertionError(kind + ": the server failed", e);
                }
                lines.add(String.format("%-17s %s", kind, "the server failed: " + e));
            }
            for (String line : lines) {
                System.out.println(line);
                report.add(line);
            }
        }
        Files.write(Path.of("target", "apacheds-comparison.txt"), report);
    }

    /**
     * One workload's line of the report: its counts, or how it failed. The mvbt partition must
     * finish every workload in both modes with no error, nothing missing, stale or torn.
     */
    private static String run(DirectoryServer.Kind kind, String workload, Callable<?> work) {
        Object result;
        try {
            result = bounded(work);
        } catch (Exception e) {
            if (kind.mvbt()) {
                throw new AssertionError(kind + ": " + workload + " failed", e);
            }
            result = "failed: " + rootMessage(e);
        }
        if (kind.mvbt() && result instanceof Workloads.Counts) {
            Workloads.Counts c = (Workloads.Counts) result;
            assertEquals(0, c.errors.get() + c.missing.get() + c.stale.get() + c.torn.get(), kind + ": " + c);
        }
        return String.format("%-17s %s: %s", kind, workload, result);
    }

    private static String rootMessage(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (!(t instanceof java.util.concurrent.ExecutionException)) {
                text.append(text.length() == 0 ? "" : " <- ").append(t.getClass().getSimpleName()).append(": ")
                        .append(t.getMessage());
            }
        }
        return text.toString();
    }

    /** The kinds named by -Dmvbt.apacheds.kinds (say MVBT,JDBM), or all. */
    private static List<DirectoryServer.Kind> kinds() {
        String named = System.getProperty("mvbt.apacheds.kinds", "");
        List<DirectoryServer.Kind> kinds = new ArrayList<>();
        for (DirectoryServer.Kind kind : DirectoryServer.Kind.values()) {
            if (named.isEmpty() || List.of(named.split(",")).contains(kind.name())) {
                kinds.add(kind);
            }
        }
        return kinds;
    }

    /** Runs a workload, giving up (and saying so) after five minutes: an unlocked peer may hang. */
    private static <T> T bounded(Callable<T> workload) throws Exception {
        ExecutorService one = Executors.newSingleThreadExecutor();
        try {
            Future<T> result = one.submit(workload);
            return result.get(LONG ? 30 : 5, TimeUnit.MINUTES);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no result after the time allowed: hung", e);
        } finally {
            one.shutdownNow();
        }
    }
}
