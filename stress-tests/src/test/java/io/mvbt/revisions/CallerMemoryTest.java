// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.mvbt.testkit.ChildJava;
import io.mvbt.testkit.Profile;

/**
 * Each method that takes a key or value as a {@code DirectBuffer} keeps the buffer reachable until
 * it has read it (issue 43). A child JVM ({@link CallerMemoryChild}) with a small young generation
 * calls the method with fresh direct buffers that it drops at once, on a file store and an
 * in-memory store, while a churn thread keeps collections running, so that a buffer the method no
 * longer holds is freed by its cleaner during the call; every answer must match a {@code TreeMap}.
 * Bulk loads are also replayed from a redo log after a simulated power cut, as the log copies the
 * key and value after the load's own use of them. Seconds per method: 5 in the short profile, 120
 * in the long one, or {@code -Dmvbt.callerMemory.seconds=N}.
 */
class CallerMemoryTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(CallerMemoryChild.Method.class)
    void answersStayRightWhileCallerBuffersAreCollected(CallerMemoryChild.Method method) throws Exception {
        int seconds = Profile.size("mvbt.callerMemory.seconds", 5, 120);
        int limit = seconds + 60;
        Path output = dir.resolve("child.out");
        // The serial collector and a 2 MB young generation: a collection every millisecond or so, after which the
        // cleaners of the buffers that died run at once. With 4 MB the bug took two to three times as long to show.
        List<String> command = new ArrayList<>(ChildJava.command());
        command.addAll(List.of("-XX:+UseSerialGC", "-Xmx64m", "-Xmn2m", "-Dmvbt.checked=true",
                "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"), "-cp", System.getProperty("java.class.path"),
                CallerMemoryChild.class.getName(), method.name(), Integer.toString(seconds),
                Long.toString(43_000 + 10 * method.ordinal()), dir.toString()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean finished = child.waitFor(limit, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
        String printed = Files.readString(output);
        assertTrue(finished, method + ": the child did not finish within " + limit + " s; it printed:\n" + printed);
        assertEquals(0, child.exitValue(), method + ": the child printed:\n" + printed);
        System.out.print(printed);
    }
}
