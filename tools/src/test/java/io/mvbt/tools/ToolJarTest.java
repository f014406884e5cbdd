// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import org.junit.jupiter.api.Test;

/**
 * The jar a user runs, {@code target/mvbt.jar}: small, without SQLite's native libraries, which
 * sit beside it for history bench. Runs in {@code verify}, after the jar is made.
 */
class ToolJarTest {
    private static final Path JAR = Path.of("target", "mvbt.jar");

    @Test
    void theToolJarHoldsNoSqliteAndFindsItBesideIt() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("org/sqlite/")), "SQLite in " + JAR);
            String classPath = jar.getManifest().getMainAttributes().getValue("Class-Path");
            assertTrue(classPath.matches("lib/sqlite-jdbc-[0-9.]+\\.jar"), classPath);
            assertTrue(Files.isRegularFile(JAR.resolveSibling(classPath)), classPath + " beside the jar");
        }
        assertTrue(Files.size(JAR) < 4 << 20, Files.size(JAR) + " bytes");
    }

    @Test
    void withoutSqliteBesideItTheHistoryBenchRunsMvbtAloneOrSaysWhy() throws Exception {
        Path alone = Files.createTempDirectory("mvbt-jar-alone");
        try {
            Path copy = Files.copy(JAR, alone.resolve("mvbt.jar"));
            String[] defaults = run(copy, "history", "bench", "--entries", "2000", "--lookups", "200", "--no-expiry");
            assertEquals("0", defaults[0], defaults[1]);
            assertTrue(defaults[1].contains("note: the SQLite engine needs SQLite's JDBC driver"), defaults[1]);
            assertTrue(defaults[1].contains("mvbt ops/s") && !defaults[1].contains("sqlite ops/s"), defaults[1]);
            String[] asked = run(copy, "history", "bench", "--engines", "sqlite", "--entries", "2000");
            assertEquals(Integer.toString(ExitCodes.FAILED), asked[0], asked[1]);
            assertTrue(asked[1].contains("tools/target/lib/"), asked[1]);
        } finally {
            DemoCommand.deleteRecursively(alone);
        }
    }

    /** Runs {@code java -jar jar args}; returns the exit status and everything printed. */
    private static String[] run(Path jar, String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-jar", jar.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return new String[] {Integer.toString(p.exitValue()), out};
    }
}
