// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.util.ArrayList;
import java.util.List;

/** The start of a command line that runs a child JVM of the tests, on the JDK that runs them. */
public final class ChildJava {
    private ChildJava() {
    }

    /**
     * The running JDK's {@code java}, and on JDK 23 and later the option that lets Agrona and the
     * page memory use {@code sun.misc.Unsafe} without the warning JDK 24 prints on first use: tests
     * read what a child prints, and the warning is no answer of the child's.
     */
    public static List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        if (Runtime.version().feature() >= 23) {
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        return command;
    }
}
