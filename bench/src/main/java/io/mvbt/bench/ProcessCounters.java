// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the process has paid so far beyond its own work: page faults (minor: a page mapped or
 * made writable again; major: read from disk) from {@code /proc/self/stat}, and garbage
 * collections with their total time. Two readings around a phase say what it cost per operation,
 * which names the cause of a slow phase or a long pause. Faults are -1 where /proc is missing.
 */
record ProcessCounters(long minorFaults, long majorFaults, long gcCount, long gcMillis) {
    static ProcessCounters now() {
        long minor = -1;
        long major = -1;
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // After the command name, which may hold spaces, in parentheses: state is field 3.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            minor = Long.parseLong(f[7]);
            major = Long.parseLong(f[9]);
        } catch (IOException | RuntimeException e) {
            // Not Linux: faults unknown.
        }
        long count = 0;
        long millis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        return new ProcessCounters(minor, major, count, millis);
    }

    /** What was paid from {@code before} to this reading. */
    ProcessCounters since(ProcessCounters before) {
        return new ProcessCounters(minorFaults < 0 || before.minorFaults < 0 ? -1 : minorFaults - before.minorFaults,
                majorFaults < 0 || before.majorFaults < 0 ? -1 : majorFaults - before.majorFaults,
                gcCount - before.gcCount, gcMillis - before.gcMillis);
    }
}
