// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.StorageException;
import io.mvbt.pagestore.local.RegionPageStore;

/**
 * A store in memory that behaves like a disk under a power cut, for tests. {@link #sync()} makes
 * everything written so far durable (it copies the pages into a durable image); {@link #syncPage}
 * makes that one page durable. {@link #cut} then
 * gives the bytes a disk could hold after the power failed: the durable image, with each page
 * changed since the last sync either lost, written, or torn (each 512-byte sector old or new) —
 * as the kernel may write dirty pages back in any order and at any time, and a sector is the unit
 * a disk writes whole. Pages are written in place, as in a mapped file, so nothing needs to be
 * intercepted: a page's state is read off its memory when the power goes.
 */
public final class PowerCutPageStore extends RegionPageStore {
    private static final int SECTOR = 512;

    private byte[] durable = new byte[0];
    private long durablePages;
    private long syncs;
    private long cutAtSync = -1;
    private Random cutRandom;
    private byte[] cutImage;
    private double failureRate;
    private Random failureRandom;
    private long failures;

    /** Operations that can be made to fail. */
    public enum Operation {
        SYNC, EXTEND, WRITE
    }

    private java.util.Set<Operation> failing = java.util.EnumSet.noneOf(Operation.class);

    /**
     * From now on, each call of the given operations fails with {@link StorageException} with
     * probability {@code rate}: a failed fsync makes nothing durable, a failed growth (a full
     * disk) leaves the store its old size, a failed write writes nothing.
     */
    public synchronized void failRandomly(double rate, Random random, java.util.Set<Operation> operations) {
        this.failureRate = rate;
        this.failureRandom = random;
        this.failing = java.util.EnumSet.copyOf(operations);
    }

    /** Failures injected so far. */
    public synchronized long failures() {
        return failures;
    }

    private void maybeFail(Operation operation) {
        if (failing.contains(operation) && failureRandom.nextDouble() < failureRate) {
            failures++;
            throw new StorageException(switch (operation) {
                case SYNC -> "fdatasync failed: Input/output error (injected)";
                case EXTEND -> "cannot grow the store: No space left on device (injected)";
                case WRITE -> "write failed: Input/output error (injected)";
            });
        }
    }

    public PowerCutPageStore(int pageSize) {
        super(pageSize);
    }

    /** A store whose pages start as {@code image} (durable), as after reopening a file. */
    public static PowerCutPageStore of(byte[] image, int pageSize) {
        PowerCutPageStore store = new PowerCutPageStore(pageSize);
        long pages = image.length / pageSize;
        store.extend(pages);
        for (long p = 0; p < pages; p++) {
            UNSAFE.copyMemory(image, UNSAFE.arrayBaseOffset(byte[].class) + p * pageSize, null,
                    store.address(p), pageSize);
        }
        store.sync();
        return store;
    }

    @Override
    public synchronized void extend(long newPageCount) {
        checkOpen();
        if (newPageCount > pageCount()) {
            maybeFail(Operation.EXTEND);
        }
        coverWithMemory(roundUpToChunk(newPageCount));
        if (newPageCount > pageCount()) {
            // New pages read as zero, as a file grown by writing zeros.
            long end = roundUpToChunk(newPageCount);
            for (long p = pageCount(); p < end; p++) {
                UNSAFE.setMemory(address(p), pageSize(), (byte) 0);
            }
            setPageCount(end);
        }
    }

    @Override
    public synchronized void truncate(long newPageCount) {
        checkOpen();
        if (newPageCount < pageCount()) {
            setPageCount(newPageCount);
        }
    }

    @Override
    public int maxRunPages() {
        return (int) ((64L << 20) / pageSize());
    }

    @Override
    public synchronized void write(long pageNo, ByteBuffer source) {
        maybeFail(Operation.WRITE);
        int length = source.remaining();
        for (int i = 0; i < length; i++) {
            UNSAFE.putByte(address(pageNo) + i, source.get(source.position() + i));
        }
        source.position(source.limit());
    }

    @Override
    public void written(long pageNo, int pages) {
        // Changes are found by comparing with the durable image.
    }

    /**
     * Arranges for the power to fail during sync number {@code sync} (counting from 1): that sync
     * captures {@link #cut} as it starts and fails with {@link StorageException}, as an fsync
     * would if the disk went away under it.
     */
    public synchronized void cutDuringSync(long sync, Random random) {
        this.cutAtSync = sync;
        this.cutRandom = random;
    }

    /** The disk as the planned cut left it, or null if it has not happened. */
    public synchronized byte[] cutImage() {
        return cutImage;
    }

    /** Copies every page into the durable image: all written so far survives a cut. */
    @Override
    public synchronized void sync() {
        beginSync();
        long pages = pageCount();
        int pageSize = pageSize();
        if (durable.length < pages * pageSize) {
            durable = Arrays.copyOf(durable, (int) (pages * pageSize));
        }
        for (long p = 0; p < pages; p++) {
            UNSAFE.copyMemory(null, address(p), durable, UNSAFE.arrayBaseOffset(byte[].class) + p * pageSize,
                    pageSize);
        }
        durablePages = pages;
        syncs++;
    }

    /**
     * What every sync does first: refuses once the power is off, cuts it if this is the sync the cut
     * was planned in, and fails if failures are injected.
     */
    private void beginSync() {
        checkOpen();
        if (cutImage != null) {
            throw new StorageException("the power is off");
        }
        if (syncs + 1 == cutAtSync) {
            cutImage = cut(cutRandom);
            throw new StorageException("power cut during sync " + cutAtSync);
        }
        maybeFail(Operation.SYNC);
    }

    /**
     * Copies page {@code pageNo} alone into the durable image, as an msync of one page: every other
     * page changed since the last whole sync may still be lost or torn by a cut. Counts as a sync
     * (a cut may be planned during it).
     */
    @Override
    public synchronized void syncPage(long pageNo) {
        beginSync();
        if (pageNo >= durablePages) {
            // The file's durable length is not this one's to change: a sync of one page does not grow it here.
            throw new IllegalStateException("page " + pageNo + " lies past the durable length " + durablePages);
        }
        int pageSize = pageSize();
        UNSAFE.copyMemory(null, address(pageNo), durable, UNSAFE.arrayBaseOffset(byte[].class) + pageNo * pageSize,
                pageSize);
        syncs++;
    }

    /** Syncs so far. */
    public synchronized long syncs() {
        return syncs;
    }

    /**
     * What a disk could hold if the power failed now: the durable image with each page written
     * since the last sync lost, written, or torn. The file keeps its current length (growth was
     * written), or its durable length, at random.
     */
    public synchronized byte[] cut(Random random) {
        int pageSize = pageSize();
        long pages = random.nextBoolean() ? pageCount() : Math.max(durablePages, 0);
        byte[] image = new byte[(int) (pages * pageSize)];
        long base = UNSAFE.arrayBaseOffset(byte[].class);
        for (long p = 0; p < pages; p++) {
            long at = p * pageSize;
            boolean hadDurable = p < durablePages;
            if (hadDurable) {
                System.arraycopy(durable, (int) at, image, (int) at, pageSize);
            }
            if (p >= pageCount() || (hadDurable && same(p, at))) {
                continue;
            }
            int choice = random.nextInt(5);
            if (choice < 2) {
                continue; // lost: the old bytes (zeros for a page that was never synced)
            }
            if (choice < 4) {
                UNSAFE.copyMemory(null, address(p), image, base + at, pageSize);
                continue; // written
            }
            for (int s = 0; s < pageSize; s += SECTOR) {
                if (random.nextBoolean()) {
                    UNSAFE.copyMemory(null, address(p) + s, image, base + at + s, SECTOR);
                }
            }
        }
        return image;
    }

    private boolean same(long page, long at) {
        long base = UNSAFE.arrayBaseOffset(byte[].class) + at;
        for (int i = 0; i < pageSize(); i += 8) {
            if (UNSAFE.getLong(durable, base + i) != UNSAFE.getLong(address(page) + i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean durable() {
        return true;
    }

    @Override
    public String describe() {
        return "simulated disk";
    }

    @Override
    public void close() {
        markClosed();
    }
}
