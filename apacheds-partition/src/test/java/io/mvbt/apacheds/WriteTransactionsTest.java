// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvbt.revisions.WriteTxn;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.directory.api.ldap.model.name.Dn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the partition's write transactions meet ApacheDS's ways of beginning and leaving them. */
class WriteTransactionsTest {
    @TempDir
    Path directory;

    private DirectoryServer server;
    private MvbtPartition partition;

    @BeforeEach
    void start() throws Exception {
        server = DirectoryServer.start(DirectoryServer.Kind.MVBT, directory, true);
        partition = (MvbtPartition) server.service.getPartitionNexus().getPartition(
                new Dn(server.service.getSchemaManager(), DirectoryServer.BASE));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private boolean writerFree() {
        try (WriteTxn w = partition.store().beginWrite(Duration.ofMillis(200))) {
            return true;
        } catch (io.mvbt.WriteTimeoutException e) {
            return false;
        }
    }

    @Test
    void aTransactionBegunInsideAWorkingOneJoinsIt() throws Exception {
        try (BoundTxn.Scope operation = WriteOperation.enter()) {
            WriteTxnAdapter outer = partition.beginWriteTransaction();
            outer.view();
            WriteTxnAdapter inner = partition.beginWriteTransaction(); // a password policy's own transaction
            assertSame(outer.txn(), inner.txn(), "no second writer, which would wait for this thread's permit");
            inner.commit();
            assertTrue(outer.isWorking(), "the inner commit leaves the outer transaction to decide");
            outer.commit();
        }
        assertTrue(writerFree());
    }

    @Test
    void aTransactionNeverUsedTakesNoWriterAndDoesNotCaptureTheNext() throws Exception {
        try (BoundTxn.Scope operation = WriteOperation.enter()) {
            WriteTxnAdapter unused = partition.beginWriteTransaction(); // ApacheDS's rename leaves this one
            WriteTxnAdapter used = partition.beginWriteTransaction();
            assertNotSame(unused, used);
            used.view();
            assertFalse(unused.isWorking());
            used.commit();
        }
        assertTrue(writerFree());
    }

    @Test
    void whateverEndsAnOperationItsTransactionsAreAborted() throws Exception {
        assertThrows(IllegalStateException.class, () -> {
            try (BoundTxn.Scope operation = WriteOperation.enter()) {
                partition.beginWriteTransaction().view();
                throw new IllegalStateException("an interceptor's bug, which ApacheDS does not catch");
            }
        });
        assertTrue(writerFree(), "the writer permit came back");
        assertThrows(AssertionError.class, () -> {
            try (BoundTxn.Scope operation = WriteOperation.enter()) {
                partition.beginWriteTransaction().view();
                throw new AssertionError("an Error");
            }
        });
        assertTrue(writerFree());
    }

    @Test
    void aSecondTransactionOfAThreadHoldingTheWriterFailsAtOnceOutsideAnOperation() {
        // ApacheDS's own operation manager opens no operation scope: nothing can join the first
        WriteTxnAdapter first = partition.beginWriteTransaction();
        first.view();
        WriteTxnAdapter second = partition.beginWriteTransaction();
        long start = System.nanoTime();
        IllegalStateException refused = assertThrows(IllegalStateException.class, second::view);
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "it did not wait for the writer timeout");
        assertTrue(refused.getMessage().contains("would wait for itself"), refused.getMessage());
        first.close();
        assertTrue(writerFree(), "the first one's end gave the writer back");
        WriteTxnAdapter later = partition.beginWriteTransaction();
        later.view();
        later.close();
    }
}
