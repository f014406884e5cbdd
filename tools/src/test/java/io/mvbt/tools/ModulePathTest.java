// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/**
 * The library jars on the module path, as a modular application uses them: their descriptors
 * resolve, export the API and nothing else, and a store works there in a JVM started with no
 * option. Runs in {@code verify}, after the jars are made (the tests before it run on the class
 * path).
 */
class ModulePathTest {
    /** The jars of the library modules (not their test jars) and of what they require. */
    private static final Pattern MODULE_JARS = Pattern.compile(
            ".*/(mvbt-(pagestore|btree|revisions|cursor|history)-[^/]*(?<!-tests)\\.jar|agrona-[^/]*\\.jar"
                    + "|RoaringBitmap-[^/]*\\.jar)");

    @Test
    void theJarsWorkOnTheModulePath() throws Exception {
        List<String> jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> MODULE_JARS.matcher(e.replace(File.separatorChar, '/')).matches())
                .collect(Collectors.toList());
        assertEquals(7, jars.size(), "the library jars (run by mvn verify, after package): " + jars);
        String modulePath = String.join(File.pathSeparator, jars);

        Result run = run(modulePath);
        assertEquals("ok", run.output.strip(), run.output);
        assertEquals(0, run.exit, run.output);
    }

    private record Result(int exit, String output) {
    }

    private static Result run(String modulePath) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String testClasses = ModulePathChild.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m"));
        command.addAll(List.of("--module-path", modulePath, "--add-modules", "io.mvbt.revisions",
                "-cp", testClasses, ModulePathChild.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(p.waitFor(), out);
    }
}
