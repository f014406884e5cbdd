package io.mvbt.revisions;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The background thread of a file store: checkpoints commits made in {@link Durability#NORMAL}
 * mode every interval, or sooner once enough pages were written, and gives a large free tail of
 * the file back to the file system. Commits only count pages and, rarely, wake it.
 */
final class Checkpointer extends StoreThread {
    private final Store store;
    private final long intervalNanos;
    private final long wakeBytes;
    private final AtomicLong writtenBytes = new AtomicLong();

    Checkpointer(Store store, StoreOptions options) {
        super("mvbt-checkpoint " + store.describe());
        this.store = store;
        this.intervalNanos = options.checkpointInterval().toNanos();
        this.wakeBytes = options.checkpointBytes();
    }

    /** A commit wrote {@code bytes} of pages. */
    void written(long bytes) {
        if (writtenBytes.addAndGet(bytes) >= wakeBytes) {
            wake();
        }
    }

    @Override
    public void run() {
        while (!stopping()) {
            LockSupport.parkNanos(this, intervalNanos);
            if (stopping()) {
                break;
            }
            writtenBytes.set(0);
            try {
                store.backgroundCheckpoint();
            } catch (Throwable t) {
                // The store records storage failures itself and refuses further writes.
                if (!store.isClosed()) {
                    store.failed(t);
                }
            }
        }
    }
}
