// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.local.LockFile;

/**
 * Clearing the slot of a dead reader never touches a slot a live reader claimed meanwhile, and a
 * clearer that died halfway leaves a slot the next clearer frees. The liveness test is replaced,
 * so the clearers interleave exactly where the race is.
 */
class StaleSlotClearingTest {
    @TempDir
    Path dir;
    private LockFile lockFile;
    private AtomicBuffer table;
    private long deadPid;

    @BeforeEach
    void openLockFile() throws Exception {
        lockFile = LockFile.open(dir.resolve("store"), 4);
        table = lockFile.table();
        Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        deadPid = exited.pid();
    }

    @AfterEach
    void closeLockFile() {
        lockFile.close();
    }

    private void plant(int slot, long owner, long revision, long start) {
        int off = slot * ReaderRegistry.SLOT_BYTES;
        table.putLong(off + ReaderRegistry.REVISION, revision);
        table.putLong(off + ReaderRegistry.PROCESS_START, start);
        table.putLongVolatile(off + ReaderRegistry.OWNER, owner);
        lockFile.header().putIntVolatile(LockFile.HIGH_WATER, Math.max(slot + 1,
                lockFile.header().getIntVolatile(LockFile.HIGH_WATER)));
    }

    private static Revision revision(long number) {
        return new Revision(number, number, null, null, 0, 0, 0, 0, 0, new TreeRoot[0]);
    }

    @Test
    void aSlotClaimedWhileAClearerDecidesKeepsItsRevision() {
        plant(0, deadPid << 8 | ReaderRegistry.SNAPSHOT, 3, 1);
        ReaderRegistry slowClearer = ReaderRegistry.shared(lockFile);
        ReaderRegistry quickClearer = ReaderRegistry.shared(lockFile);
        ReaderRegistry reader = ReaderRegistry.shared(lockFile);
        quickClearer.liveness((pid, start) -> false);
        int[] claimed = {-1};
        slowClearer.liveness((pid, start) -> {
            // While the slow clearer reads /proc, another frees the slot and a new reader takes it.
            assertEquals(1, quickClearer.clearStale());
            claimed[0] = reader.claim(ReaderRegistry.SNAPSHOT);
            reader.hold(claimed[0], revision(7));
            return false;
        });

        assertEquals(0, slowClearer.clearStale());

        assertEquals(0, claimed[0], "the reader took the freed slot");
        assertEquals(7, reader.newestBelow(100), "the live reader's revision is still held");
        assertEquals(ProcessLiveness.PID << 8 | ReaderRegistry.SNAPSHOT,
                table.getLongVolatile(ReaderRegistry.OWNER));
    }

    @Test
    void aSlotLeftHalfClearedByADeadClearerIsFreed() {
        plant(1, deadPid << 8 | ReaderRegistry.CLEARING, 3, 12_345);
        ReaderRegistry registry = ReaderRegistry.shared(lockFile);

        assertEquals(1, registry.clearStale());

        assertEquals(-1, registry.newestBelow(100));
        assertEquals(0, table.getLongVolatile(ReaderRegistry.SLOT_BYTES + ReaderRegistry.OWNER));
    }

    @Test
    void aLiveClearerIsNotJudgedByTheStartOfTheReaderItClears() {
        // The slot still has the dead reader's start: against it, the clearer would look dead too.
        plant(1, deadPid << 8 | ReaderRegistry.CLEARING, 3, 12_345);
        ReaderRegistry registry = ReaderRegistry.shared(lockFile);
        registry.liveness((pid, start) -> start != 12_345);

        assertEquals(0, registry.clearStale());

        assertEquals(deadPid << 8 | ReaderRegistry.CLEARING,
                table.getLongVolatile(ReaderRegistry.SLOT_BYTES + ReaderRegistry.OWNER));
    }
}
