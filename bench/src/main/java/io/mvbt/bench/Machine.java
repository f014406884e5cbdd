// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine a run happened on, for the report. */
public final class Machine {
    private Machine() {
    }

    public static String describe() {
        String cpu = "unknown CPU";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: the CPU stays unnamed.
        }
        long memGiB = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    memGiB = Math.round(Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0 / 1024.0);
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Unknown memory size.
        }
        return "nproc " + Runtime.getRuntime().availableProcessors() + ", " + cpu + (memGiB > 0 ? ", " + memGiB + " GiB RAM" : "")
                + ", " + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
                + System.getProperty("java.vm.version") + " (" + System.getProperty("java.vm.vendor") + ")";
    }
}
