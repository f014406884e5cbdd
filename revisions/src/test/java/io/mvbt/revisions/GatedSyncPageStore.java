package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.mvbt.pagestore.PageStore;

/** A page store that passes everything to another, but can hold one chosen sync until the test lets it go. */
final class GatedSyncPageStore implements PageStore {
    private final PageStore pages;
    private long syncs;
    private Gate gate;

    /** One held sync: entered once it starts, and it goes on once opened. */
    static final class Gate {
        final long sync;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        Gate(long sync) {
            this.sync = sync;
        }

        /** Waits until the held sync has started. */
        void awaitEntered() throws InterruptedException {
            if (!entered.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the held sync never came");
            }
        }

        void release() {
            open.countDown();
        }
    }

    GatedSyncPageStore(PageStore pages) {
        this.pages = pages;
    }

    /** Holds the {@code n}th sync from now (1: the next) until the gate is released. */
    synchronized Gate gate(int n) {
        gate = new Gate(syncs + n);
        return gate;
    }

    @Override
    public void sync() {
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
        pages.sync();
    }

    @Override
    public int pageSize() {
        return pages.pageSize();
    }

    @Override
    public long pageCount() {
        return pages.pageCount();
    }

    @Override
    public void extend(long newPageCount) {
        pages.extend(newPageCount);
    }

    @Override
    public long appendRun(int n) {
        return pages.appendRun(n);
    }

    @Override
    public void truncate(long newPageCount) {
        pages.truncate(newPageCount);
    }

    @Override
    public long roundUpToGrowthUnit(long n) {
        return pages.roundUpToGrowthUnit(n);
    }

    @Override
    public long runEnd(long pageNo) {
        return pages.runEnd(pageNo);
    }

    @Override
    public int maxRunPages() {
        return pages.maxRunPages();
    }

    @Override
    public long address(long pageNo) {
        return pages.address(pageNo);
    }

    @Override
    public ByteBuffer buffer(long pageNo, int n) {
        return pages.buffer(pageNo, n);
    }

    @Override
    public void write(long pageNo, ByteBuffer source) {
        pages.write(pageNo, source);
    }

    @Override
    public void written(long pageNo, int n) {
        pages.written(pageNo, n);
    }

    @Override
    public boolean durable() {
        return pages.durable();
    }

    @Override
    public boolean reusesPages() {
        return pages.reusesPages();
    }

    @Override
    public String describe() {
        return pages.describe();
    }

    @Override
    public void close() {
        pages.close();
    }
}
