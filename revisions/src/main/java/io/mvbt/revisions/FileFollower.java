// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

import io.mvbt.pagestore.local.FilePageStore;

/**
 * Follows the revisions another process publishes in a file: the meta its writer announced last
 * in the reader table, read again only when the announcement changes. Before any announcement (no
 * writer since the reader table was created) it is the meta recovery would open at. Used by
 * read-only stores and by writers that take turns, between their turns.
 */
final class FileFollower {
    /** How long a reader waits for an announced meta to appear in its slot before reading the metas itself. */
    private static final long ANNOUNCEMENT_WAIT_NANOS = 1_000_000_000L;

    private final FilePageStore file;
    private final ReaderRegistry registry;
    private final Checksums checksums;
    private final Publisher publisher;
    private final Adoption adoption;
    /** Tree handles known so far: a followed revision gets room to cache their roots. */
    private final IntSupplier treeCount;
    /** A read-only store: the publisher takes each revision followed as its newest. */
    private final boolean readOnly;
    private volatile Followed followed;

    /** A meta announced in the reader table ({@code sequence << 2 | slot}) and the revision it holds. */
    private record Followed(long meta, Revision revision) {
    }

    FileFollower(FilePageStore file, ReaderRegistry registry, Checksums checksums, Publisher publisher,
            Adoption adoption, IntSupplier treeCount, boolean readOnly) {
        this.file = file;
        this.registry = registry;
        this.checksums = checksums;
        this.publisher = publisher;
        this.adoption = adoption;
        this.treeCount = treeCount;
        this.readOnly = readOnly;
    }

    /** The newest revision announced. */
    Revision newest() {
        long waitingFor = 0;
        long giveUpAt = 0;
        while (true) {
            long meta = registry.published();
            Followed f = followed;
            if (f != null && f.meta == meta) {
                return f.revision;
            }
            Publisher.Announcement own = publisher.lastAnnounced();
            if (own != null && own.word() == meta) {
                return own.revision();
            }
            MetaPage.Record m;
            if (meta == 0) {
                m = adoption.recoveredMeta();
            } else {
                int slot = (int) (meta & 3);
                m = slot < file.pageCount() ? MetaPage.read(file, checksums, slot) : null;
                if (m == null || m.sequence != meta >>> 2) {
                    // Normally overwritten by a newer meta since, whose announcement follows within
                    // microseconds. One that never comes true (the store file was replaced under the
                    // reader table, or the slot is damaged) gives way, after a second, to the metas
                    // as recovery reads them; remembered, so that later reads do not wait again.
                    if (meta != waitingFor) {
                        waitingFor = meta;
                        giveUpAt = System.nanoTime() + ANNOUNCEMENT_WAIT_NANOS;
                    }
                    if (System.nanoTime() - giveUpAt < 0) {
                        LockSupport.parkNanos(10_000);
                        continue;
                    }
                    m = adoption.recoveredMeta();
                } else {
                    publisher.storeId(m.storeId);
                }
            }
            if (m.pageCount > file.pageCount()) {
                file.follow();
            }
            Revision r = adoption.followed(m, treeCount.getAsInt());
            followed = new Followed(meta, r);
            if (readOnly) {
                publisher.follow(r);
            }
            return r;
        }
    }

    /** Publishes the newest revision in a registry slot, re-reading until no commit slipped between. */
    Revision hold(int slot) {
        while (true) {
            long meta = registry.published();
            Revision r = newest();
            registry.hold(slot, r);
            if (registry.published() == meta) {
                return r;
            }
        }
    }
}
