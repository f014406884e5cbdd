// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a store tells monitoring: live counters polled without allocation, and Flight Recorder events. */
class StoreSignalsTest {
    @TempDir
    Path dir;

    @Test
    void metricsFollowTheStoreAndAllocateNothing() {
        try (Store store = Store.open(dir.resolve("m.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL))) {
            StoreMetrics m = store.metrics();
            assertSame(m, store.metrics());
            long commits = m.commits();
            for (int i = 0; i < 100; i++) {
                try (WriteTxn tx = store.beginWrite()) {
                    tx.put(tx.createTreeIfAbsent("t"), Integer.toString(i).getBytes(), new byte[100]);
                    tx.commit();
                }
            }
            assertEquals(commits + 100, m.commits());
            assertEquals(store.revision(), m.revision());
            assertEquals(store.stats().pagesInUse(), m.pagesInUse());
            assertEquals(store.stats().pagesInFile(), m.pagesInFile());
            try (Snapshot s = store.beginRead()) {
                assertEquals(1, m.openSnapshots());
            }
            store.sync();
            assertEquals(store.revision(), m.durableRevision());
            assertTrue(m.checkpoints() >= 1);

            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long sum = 0;
            for (int round = 0; round < 3; round++) {
                long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
                for (int i = 0; i < 100_000; i++) {
                    sum += m.revision() + m.durableRevision() + m.commits() + m.checkpoints() + m.pagesInFile()
                            + m.pagesInUse() + m.pagesFree() + m.pagesWaitingForReaders() + m.openSnapshots()
                            + m.writerWaits();
                }
                long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
                if (round == 2) {
                    assertTrue(allocated < 4096, "100,000 polls allocated " + allocated + " bytes");
                }
            }
            assertTrue(sum > 0);
        }
    }

    @Test
    void commitsCheckpointsAndSyncsAreRecorded() throws IOException {
        Path file = dir.resolve("events.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("io.mvbt.Commit");
            recording.enable("io.mvbt.Checkpoint");
            recording.enable("io.mvbt.Sync");
            recording.start();
            try (Store store = Store.open(dir.resolve("e.mvbt"), StoreOptions.defaults().durability(Durability.NORMAL))) {
                for (int i = 0; i < 20; i++) {
                    try (WriteTxn tx = store.beginWrite()) {
                        tx.put(tx.createTreeIfAbsent("t"), Integer.toString(i).getBytes(), new byte[100]);
                        tx.commit(i == 10 ? Durability.SYNC : Durability.NORMAL);
                    }
                }
                store.sync();
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> commits = events.stream().filter(e -> e.getEventType().getName().equals("io.mvbt.Commit"))
                .toList();
        assertTrue(commits.size() >= 20, "commit events: " + commits.size());
        assertTrue(commits.stream().anyMatch(e -> e.getString("durability").equals("SYNC")), commits.toString());
        assertTrue(commits.stream().allMatch(e -> e.getLong("pages") > 0 && e.getLong("revision") > 0), commits.toString());
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.mvbt.Sync")));
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.mvbt.Checkpoint")
                && e.getLong("revision") > e.getLong("since")), events.stream()
                .filter(e -> !e.getEventType().getName().equals("io.mvbt.Commit")).toList().toString());
    }

    /** A long check tells its caller how far it got ({@code mvbt check} draws a progress line from it). */
    @Test
    void checkReportsThePagesItHasChecked() {
        try (Store store = Store.inMemory()) {
            try (WriteTxn tx = store.beginWrite()) {
                Tree t = tx.createTree("t");
                for (int i = 0; i < 60_000; i++) {
                    tx.put(t, String.format("%08d", i).getBytes(), new byte[500]);
                }
                tx.commit();
            }
            List<Long> seen = new java.util.ArrayList<>();
            CheckReport report = store.check(seen::add);
            report.throwIfDamaged();
            assertTrue(seen.size() >= 1, "no progress over " + report.pagesChecked() + " pages");
            for (int i = 1; i < seen.size(); i++) {
                assertTrue(seen.get(i) > seen.get(i - 1));
            }
            assertTrue(seen.get(seen.size() - 1) <= report.pagesChecked());
        }
    }
}
