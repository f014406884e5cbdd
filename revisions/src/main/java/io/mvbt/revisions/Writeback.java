// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.pagestore.PageStore;
import io.mvbt.pagestore.RemotePageStore;

/**
 * How written pages reach storage. In place (a file, memory): page numbers are reused, and a sync
 * writes pages back where they are. Sent ({@link RemotePageStore}): page numbers are never reused,
 * freed pages are deleted, a checkpoint sends its pages ahead and then the meta, and cursors fetch
 * the pages they will need together.
 */
interface Writeback {
    static Writeback inPlace(PageStore pages) {
        return new InPlace(pages);
    }

    static Writeback sent(RemotePageStore pages) {
        return new Sent(pages);
    }

    /** Whether a freed page number is written again. */
    boolean reusesPages();

    /** The action that makes everything written so far durable, to run outside the caller's locks. */
    Runnable prepareSync();

    /** The action that sends the pages written so far but not the meta slots (nothing in place). */
    Runnable preparePages();

    /** A run no revision can reach any more (sent stores delete it; called only where pages are not reused). */
    void discard(long pageNo, int pages);

    /** Whether {@link #prefetch} is worth calling. */
    boolean prefetches();

    void prefetch(long[] pageNos, int count);

    /** A file or memory. */
    record InPlace(PageStore pages) implements Writeback {
        @Override
        public boolean reusesPages() {
            return true;
        }

        @Override
        public Runnable prepareSync() {
            return pages::sync;
        }

        @Override
        public Runnable preparePages() {
            return () -> { };
        }

        @Override
        public void discard(long pageNo, int n) {
            throw new IllegalStateException("pages in place are reused, not discarded");
        }

        @Override
        public boolean prefetches() {
            return false;
        }

        @Override
        public void prefetch(long[] pageNos, int count) {
            // Pages in memory or a mapped file are here already.
        }
    }

    /** Pages kept elsewhere. */
    record Sent(RemotePageStore pages) implements Writeback {
        @Override
        public boolean reusesPages() {
            return false;
        }

        @Override
        public Runnable prepareSync() {
            return pages.prepareSync();
        }

        @Override
        public Runnable preparePages() {
            return pages.preparePages();
        }

        @Override
        public void discard(long pageNo, int n) {
            pages.discard(pageNo, n);
        }

        @Override
        public boolean prefetches() {
            return true;
        }

        @Override
        public void prefetch(long[] pageNos, int count) {
            pages.prefetch(pageNos, count);
        }
    }
}
