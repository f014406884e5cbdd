// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;


/** Runs a main class of the test classpath in a child JVM and returns its output. */
final class ChildJvm {
    private ChildJvm() {
    }

    static String run(Class<?> main, String... args) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command(main, args)).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.toHandle().destroyForcibly();
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /** Starts {@code main}; its output (with errors) goes to {@code log}, or a pipe if null. */
    static Process start(java.nio.file.Path log, Class<?> main, String... args) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command(main, args)).redirectErrorStream(true);
        if (log != null) {
            builder.redirectOutput(log.toFile());
        }
        return builder.start();
    }

    /** The first line {@code child} prints, split at spaces; fails unless its first word is {@code word}. */
    static String[] firstLine(Process child, String word) throws IOException {
        String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        assertNotNull(line, "child said nothing");
        assertTrue(line.startsWith(word + " "), line);
        return line.split(" ");
    }

    /** A plain JVM: no flag, as an application embedding mvbt runs. */
    private static List<String> command(Class<?> main, String... args) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(List.of("-Xmx128m", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return command;
    }
}
