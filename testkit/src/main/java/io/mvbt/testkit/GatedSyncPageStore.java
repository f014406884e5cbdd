// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.mvbt.pagestore.PageStore;

/**
 * A page store that passes everything to another, but can hold one chosen sync (whole or of one page)
 * until the test lets it go.
 */
public final class GatedSyncPageStore extends ForwardingPageStore {
    private long syncs;
    private Gate gate;

    /** One held sync: entered once it starts, and it goes on once opened. */
    public static final class Gate {
        final long sync;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        Gate(long sync) {
            this.sync = sync;
        }

        /** Waits until the held sync has started. */
        public void awaitEntered() throws InterruptedException {
            if (!entered.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the held sync never came");
            }
        }

        public void release() {
            open.countDown();
        }
    }

    public GatedSyncPageStore(PageStore pages) {
        super(pages);
    }

    /** Holds the {@code n}th sync from now (1: the next) until the gate is released. */
    public synchronized Gate gate(int n) {
        gate = new Gate(syncs + n);
        return gate;
    }

    @Override
    public void sync() {
        waitAtGate();
        pages.sync();
    }

    /** A ranged sync counts as a sync, and may be held as one. */
    @Override
    public void syncPage(long pageNo) {
        waitAtGate();
        pages.syncPage(pageNo);
    }

    private void waitAtGate() {
        Gate held = null;
        synchronized (this) {
            syncs++;
            if (gate != null && gate.sync == syncs) {
                held = gate;
            }
        }
        if (held != null) {
            held.entered.countDown();
            try {
                if (!held.open.await(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("the held sync was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
