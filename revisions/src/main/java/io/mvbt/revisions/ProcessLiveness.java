// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.time.Instant;
import java.util.Optional;

/**
 * Whether the process that claimed a reader slot still runs: its pid names a live process that
 * started when the slot says (so a pid reused by a new process does not keep a dead reader's slot).
 * Processes must share a pid namespace (one host, one container) to see each other.
 */
final class ProcessLiveness {
    static final long PID = ProcessHandle.current().pid();
    /** This process's start time (epoch ms), 0 if the platform does not tell. */
    static final long START = startOf(ProcessHandle.current());

    private ProcessLiveness() {
    }

    static boolean alive(long pid, long start) {
        if (pid == PID) {
            return true;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        return start == 0 || startOf(handle.get()) == start || startOf(handle.get()) == 0;
    }

    private static long startOf(ProcessHandle process) {
        return process.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }
}
