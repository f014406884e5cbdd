// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.mvbt.revisions.ReaderInfo;
import io.mvbt.revisions.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The reader table: who holds which revision, in which process, for how long (mdb_reader_list). */
@Command(name = "readers", mixinStandardHelpOptions = true,
        description = "List the open snapshots of every process that has the store open: pid, thread, revision,"
                + " lag and age. Opens the store read-only; never takes the writer lock.")
final class ReadersCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Option(names = "--clear-stale", description = "Free the slots of processes that died holding snapshots.")
    boolean clearStale;

    @Option(names = "--json", description = "Print one JSON object instead (for scripts and monitoring).")
    boolean json;

    @Override
    public Integer call() {
        try (Store s = StoreFiles.openReadOnly(store)) {
            int cleared = clearStale ? s.clearStaleReaders() : 0;
            List<ReaderInfo> readers = s.readers();
            if (json) {
                System.out.println(Json.write(json(s, cleared, readers)));
                return ExitCodes.OK;
            }
            if (clearStale) {
                System.out.printf("cleared %s%n", Plural.of(cleared, "stale slot"));
            }
            System.out.printf("store %s at revision %,d: %s%n", store, s.revision(), Plural.of(readers.size(), "holder"));
            if (!readers.isEmpty()) {
                System.out.printf("%8s  %-10s %12s %10s %10s  %s%n", "pid", "kind", "revision", "lag", "age ms",
                        "thread / state");
            }
            for (ReaderInfo r : readers) {
                String thread = r.threadName() != null ? r.threadName() + " (" + r.threadId() + ")"
                        : "thread " + r.threadId();
                String state = r.stale() ? ", STALE: process gone" : r.expired() ? ", expired" : "";
                System.out.printf("%8d  %-10s %,12d %,10d %,10d  %s%s%n", r.pid(),
                        r.checkpoint() ? "checkpoint" : "snapshot", r.revision(), r.lag(), r.ageMillis(), thread,
                        state);
            }
        }
        return ExitCodes.OK;
    }

    private Map<String, Object> json(Store s, int cleared, List<ReaderInfo> readers) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("store", store.toString());
        out.put("revision", s.revision());
        if (clearStale) {
            out.put("clearedStaleSlots", cleared);
        }
        List<Object> list = new ArrayList<>();
        for (ReaderInfo r : readers) {
            Map<String, Object> reader = new LinkedHashMap<>();
            reader.put("pid", r.pid());
            reader.put("kind", r.checkpoint() ? "checkpoint" : "snapshot");
            reader.put("revision", r.revision());
            reader.put("lag", r.lag());
            reader.put("ageMillis", r.ageMillis());
            reader.put("threadId", r.threadId());
            reader.put("threadName", r.threadName());
            reader.put("expired", r.expired());
            reader.put("stale", r.stale());
            list.add(reader);
        }
        out.put("readers", list);
        return out;
    }
}
