// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.concurrent.locks.LockSupport;

/** A daemon thread of a store that parks between rounds of work and is stopped at close. */
abstract class StoreThread implements Runnable {
    private final Thread thread;
    private volatile boolean stopping;

    StoreThread(String name) {
        this.thread = new Thread(this, name);
        thread.setDaemon(true);
    }

    final void start() {
        thread.start();
    }

    /** Whether {@link #stop} was called: the thread's loop ends. */
    final boolean stopping() {
        return stopping;
    }

    /** Ends a park of the thread, or the next one. */
    final void wake() {
        LockSupport.unpark(thread);
    }

    /** Ends the thread, waiting for the round it is in. */
    final void stop() {
        stopping = true;
        wake();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
