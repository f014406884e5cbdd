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

import io.mvbt.testkit.ChildJava;


/** Runs a main class of the test classpath in a child JVM and returns its output. */
final class ChildJvm {
    private ChildJvm() {
    }

    static String run(Class<?> main, String... args) throws IOException, InterruptedException {
        return run(command(ChildJava.command(), main, args));
    }

    /**
     * {@link #run} in a JVM started with no option at all, as an application embedding mvbt runs:
     * on JDK 24 and later, whatever the JDK prints about {@code sun.misc.Unsafe} is in the output too.
     */
    static String runPlain(Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> java = List.of(ProcessHandle.current().info().command().orElse("java"));
        return run(command(java, main, args));
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.toHandle().destroyForcibly();
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /**
     * Starts {@code main}; its output (with errors) goes to {@code log}, or a pipe if null. A child
     * still running when the test JVM exits (its test failed before it was killed) is killed then.
     */
    static Process start(java.nio.file.Path log, Class<?> main, String... args) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command(ChildJava.command(), main, args)).redirectErrorStream(true);
        if (log != null) {
            builder.redirectOutput(log.toFile());
        }
        Process child = builder.start();
        Runtime.getRuntime().addShutdownHook(new Thread(child::destroyForcibly));
        return child;
    }

    /** The first line {@code child} prints, split at spaces; fails unless its first word is {@code word}. */
    static String[] firstLine(Process child, String word) throws IOException {
        String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        assertNotNull(line, "child said nothing");
        assertTrue(line.startsWith(word + " "), line);
        return line.split(" ");
    }

    /** {@code java}, with a heap bound and the class path: no flag an application embedding mvbt would need. */
    private static List<String> command(List<String> java, Class<?> main, String... args) {
        List<String> command = new ArrayList<>(java);
        command.addAll(List.of("-Xmx128m", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return command;
    }
}
