// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Named revisions across processes: a revision another writer (taking turns) kept under a name is
 * held by this one too, whose commits then rewrite and free everything it reaches, and a
 * read-only process opens it by name.
 */
class NamedRevisionProcessesTest {
    @TempDir
    Path dir;

    @Test
    void writersTakingTurnsAndReadersElsewhereShareNamedRevisions() throws Exception {
        Path path = dir.resolve("shared.mvbt");
        try (Store store = Store.open(path, WriterChild.options(Durability.NORMAL).checked(true))) {
            for (int i = 0; i < 5; i++) {
                WriterChild.commitNext(store);
            }
            String retained = ChildJvm.run(NamedChild.class, "retain", path.toString(), "elsewhere");
            assertTrue(retained.startsWith("RETAINED "), retained);
            String[] words = retained.trim().split(" ");
            long revision = Long.parseLong(words[1]);
            long round = Long.parseLong(words[2]);
            // Catching up, this writer learns the name; its commits would reuse the pages otherwise.
            for (int i = 0; i < 60; i++) {
                WriterChild.commitNext(store);
            }
            try (Snapshot s = store.beginRead("elsewhere")) {
                assertEquals(revision, s.revision());
                assertEquals(round, ProcessReadersTest.verify(s, store.tree("fixed"), store.tree("churn")));
            }
            String read = ChildJvm.run(NamedChild.class, "read", path.toString(), "elsewhere");
            assertEquals("READ " + revision + " " + round, read.trim());
            assertTrue(store.check().ok(), store.check().problems().toString());
            store.release("elsewhere");
            for (int i = 0; i < 5; i++) {
                WriterChild.commitNext(store);
            }
            assertTrue(store.check().ok(), store.check().problems().toString());
        }
    }
}
