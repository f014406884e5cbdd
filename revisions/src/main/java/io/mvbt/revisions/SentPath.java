// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.pagestore.RemotePageStore;

/**
 * Pages sent to a remote store ({@link RemotePageStore}): page numbers are never reused, a
 * checkpoint sends its pages without a meta beside the writer, a second pass takes the commits
 * made meanwhile, and the last pages and then the steady meta go in order, in one send. SYNC
 * commits wait for the checkpoint lock, so that none seals a page being copied to the wire.
 */
final class SentPath implements PagePath {
    private final Writeback.Sent writeback;
    private final Publisher publisher;
    private final ReaderRegistry registry;
    private final Health health;

    SentPath(Writeback.Sent writeback, Publisher publisher, ReaderRegistry registry, Health health) {
        this.writeback = writeback;
        this.publisher = publisher;
        this.registry = registry;
        this.health = health;
    }

    @Override
    public boolean reusesPages() {
        return false;
    }

    @Override
    public boolean sealsBesideCheckpoint() {
        return false;
    }

    @Override
    public void seal(PageAccess sealer, Revision r, long since) {
        RevisionWalker.seal(sealer, r, since, RevisionWalker.NO_WRITEBACK);
    }

    @Override
    public void flush() {
        writeback.preparePages().run();
    }

    /** Sending takes long: the pass under the meta lock, which commits wait for, then copies few pages. */
    @Override
    public boolean passesTwice() {
        return true;
    }

    @Override
    public long steady(int slot, PageAccess sealer, long sealed) {
        int pending;
        Revision h;
        Runnable send;
        publisher.lock();
        try {
            h = publisher.latest();
            // From here h is what becomes durable: its pages must not be deleted by commits
            // between this lock and the send, though it is not durable yet.
            registry.hold(slot, h);
            if (h.revision != sealed) {
                seal(sealer, h, sealed);
            }
            pending = publisher.publishSteadyCopy(h);
            // The pages and then the steady meta go in order, in one send; they are copied here, as
            // no commit can seal a page being copied (a page sent while being sealed would arrive torn).
            send = writeback.prepareSync();
        } finally {
            publisher.unlock();
        }
        health.sync(send);
        publisher.lock();
        try {
            // Unless a SYNC commit made a newer revision durable while the meta was sent.
            return publisher.steadyCopySynced(pending, h);
        } finally {
            publisher.unlock();
        }
    }
}
