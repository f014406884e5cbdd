// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.SharedPages;
import io.mvbt.pagestore.local.FilePageStore;

/**
 * Who else reads or writes a store's pages, and what follows from it: one record per deployment
 * mode, chosen by a {@code Store.open} factory. Each states what the rest of the store asks of the
 * mode and assembles the mode's {@link Peers} from the {@link Parts} built before them, so the
 * store's graph is built in one direction: parts, peers, then what uses both.
 */
sealed interface Deployment {
    /** Where snapshots register: the lock file's reader table, or memory. */
    ReaderRegistry registry();

    /**
     * Whether pages written by another process are read without their checksum (readers and
     * writers beside a writer in another process): their headers and structure are checked.
     */
    boolean othersWrite();

    /** How written pages reach storage. */
    Writeback writeback();

    /** Takes the writer's write faults ahead of it (a sole writer of a file), or null. */
    default Prefaulter prefaulter() {
        return null;
    }

    /**
     * A file whose sole writer may hold recent pages in a shadow ({@link Shadows}), or which is read
     * beside such a writer; null for the others.
     */
    default FilePageStore shadowed() {
        return null;
    }

    /** Where a sole writer's redo log lies, whether or not it records; null for the others. */
    default RedoStorage redo() {
        return null;
    }

    /** Builds the mode's peers. */
    Peers peers(Parts parts);

    /** The parts of a store built before its {@link Peers}, which a mode's peers are built from. */
    record Parts(PageStore pages, StoreOptions options, ReaderRegistry registry, ReaderSlots slots,
            Checksums checksums, Publisher publisher, Adoption adoption, Health health,
            Holders holders, WriterPermit writer, AtomicLong writerWaits, IntSupplier treeCount) {
    }

    /** A store file, written where it lies: through the mapping and positional writes. */
    sealed interface InFile extends Deployment {
        FilePageStore file();

        @Override
        default Writeback writeback() {
            return Writeback.inPlace(file());
        }
    }

    /** The sole writer of a file, with readers in this process and others. */
    record SoleFile(FilePageStore file, ReaderRegistry registry, Prefaulter prefaulter, RedoStorage redo)
            implements InFile {
        @Override
        public boolean othersWrite() {
            return false;
        }

        @Override
        public FilePageStore shadowed() {
            return file;
        }

        @Override
        public Peers peers(Parts s) {
            return new SolePeers(s.registry(), s.slots(), s.publisher());
        }
    }

    /**
     * One of the writers of a file that take turns. They allocate from one free space, so none can
     * prefault what another takes, and none keeps a redo log or a shadow.
     */
    record SharedFile(FilePageStore file, ReaderRegistry registry) implements InFile {
        @Override
        public boolean othersWrite() {
            return true;
        }

        @Override
        public Peers peers(Parts s) {
            return new TurnTakingPeers(file, s.registry(), s.slots(), s.publisher(), s.adoption(),
                    s.health(), s.holders(), s.writer(), s.options(), s.writerWaits(),
                    new FileFollower(file, s.registry(), s.checksums(), s.publisher(), s.adoption(), s.treeCount(), false));
        }
    }

    /** A reader of a file beside the process that writes it, or none. */
    record ReadOnlyFile(FilePageStore file, ReaderRegistry registry) implements InFile {
        @Override
        public boolean othersWrite() {
            return true;
        }

        @Override
        public FilePageStore shadowed() {
            return file;
        }

        @Override
        public Peers peers(Parts s) {
            return new FollowerPeers(new FileFollower(file, s.registry(), s.checksums(), s.publisher(), s.adoption(),
                    s.treeCount(), true), s.slots());
        }
    }

    /** The sole user of a page store of its own (memory, a simulated disk), with a redo log or none. */
    record SolePages(PageStore pages, ReaderRegistry registry, RedoStorage redo) implements Deployment {
        @Override
        public boolean othersWrite() {
            return false;
        }

        @Override
        public Writeback writeback() {
            return Writeback.inPlace(pages);
        }

        @Override
        public Peers peers(Parts s) {
            return new SolePeers(s.registry(), s.slots(), s.publisher());
        }
    }

    /** The writer of a page store shared with other hosts (Redis), which its readers follow. */
    record RemoteWriter(SharedPages shared, PageStore pages, Writeback writeback, ReaderRegistry registry)
            implements Deployment {
        @Override
        public boolean othersWrite() {
            return false;
        }

        @Override
        public Peers peers(Parts s) {
            return new RemoteWriterPeers(shared, pages, s.publisher(), s.health(),
                    new SolePeers(s.registry(), s.slots(), s.publisher()));
        }
    }

    /** A reader of a page store shared with other hosts, following the writer there. */
    record RemoteReader(SharedPages shared, PageStore pages, Writeback writeback, ReaderRegistry registry)
            implements Deployment {
        @Override
        public boolean othersWrite() {
            return true;
        }

        @Override
        public Peers peers(Parts s) {
            return new RemoteReaderPeers(shared, pages, s.registry(), s.slots(), s.checksums(), s.publisher(),
                    s.adoption(), s.treeCount());
        }
    }
}
