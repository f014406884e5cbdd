// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lock file beside a store: one per store file, shared within a JVM, sized once. */
class LockFileTest {
    @TempDir
    Path dir;

    @Test
    void oneJvmSharesOneLockFileAndItsSizeIsSetByTheFirstOpen() throws IOException {
        Path store = dir.resolve("s.store");
        Files.createFile(store);
        LockFile first = LockFile.open(store, 8);
        try {
            LockFile second = LockFile.open(store, 64);
            assertSame(first, second);
            assertEquals(8, second.slots());
            second.close();
            assertEquals(LockFile.lockPathOf(store), first.path());
            assertTrue(Files.exists(first.path()));
        } finally {
            first.close();
        }
        // Nobody uses it any more: the next open sizes it anew.
        LockFile again = LockFile.open(store, 16);
        try {
            assertEquals(16, again.slots());
        } finally {
            again.close();
        }
    }

    @Test
    void aSymbolicLinkLeadsToTheLockFileOfTheFileItNames() throws IOException {
        Path store = dir.resolve("real.store");
        Files.createFile(store);
        Path link = dir.resolve("link.store");
        Files.createSymbolicLink(link, store);
        assertEquals(LockFile.lockPathOf(store), LockFile.lockPathOf(link));
        LockFile viaStore = LockFile.open(store, 8);
        try {
            LockFile viaLink = LockFile.open(link, 8);
            assertSame(viaStore, viaLink);
            viaLink.close();
        } finally {
            viaStore.close();
        }
    }
}
