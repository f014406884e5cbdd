// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A lock file is removed by the process that made it when it is the last to close it, and only then. */
class LockFileRemovalTest {
    @TempDir
    Path dir;

    private Path store() throws IOException {
        return Files.createFile(dir.resolve("s.store"));
    }

    @Test
    void aLockFileThisProcessMadeGoesWithItsLastClose() throws IOException {
        Path store = store();
        LockFile first = LockFile.open(store, 8);
        LockFile second = LockFile.open(store, 8);
        second.close();
        assertTrue(Files.exists(LockFile.lockPathOf(store)), "still open once in this JVM");
        first.close();
        assertFalse(Files.exists(LockFile.lockPathOf(store)));
    }

    @Test
    void aLockFileFoundIsLeftWhereItWas() throws IOException {
        Path store = store();
        Path lock = Files.createFile(LockFile.lockPathOf(store));
        LockFile.open(store, 8).close();
        assertTrue(Files.exists(lock));
        assertEquals(LockFile.HEADER_BYTES + 8 * LockFile.SLOT_BYTES, Files.size(lock), "it was used, not replaced");
    }

    @Test
    void itStaysWhileAnotherProcessUsesItAndGoesWithItsMaker() throws Exception {
        Path store = store();
        Path lock = LockFile.lockPathOf(store);
        // This JVM makes it, a child joins: closing here leaves it to the child, which did not make it.
        LockFile made = LockFile.open(store, 8);
        Process child = holder(store);
        made.close();
        assertTrue(Files.exists(lock), "removed under a process that uses it");
        end(child);
        assertTrue(Files.exists(lock), "removed by a process that found it");
        Files.delete(lock);
        // The child makes it, this JVM joins and closes first: the child removes it when it ends.
        child = holder(store);
        LockFile joined = LockFile.open(store, 8);
        joined.close();
        assertTrue(Files.exists(lock));
        end(child);
        assertFalse(Files.exists(lock));
    }

    @Test
    void anOpenAfterARemovalMakesANewFile() throws IOException {
        Path store = store();
        for (int round = 0; round < 20; round++) {
            try (LockFile lockFile = LockFile.open(store, 8)) {
                assertEquals(8, lockFile.slots());
                assertTrue(Files.exists(lockFile.path()));
            }
            assertFalse(Files.exists(LockFile.lockPathOf(store)));
        }
    }

    private static Process holder(Path store) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                LockFileHolder.class.getName(), store.toString())
                // Only stdout speaks the protocol: a JVM may print warnings on stderr (JDK 24 and later do).
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null && line.startsWith("open "), "child said: " + line);
        return p;
    }

    private static void end(Process child) throws Exception {
        child.getOutputStream().close();
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue());
    }
}
