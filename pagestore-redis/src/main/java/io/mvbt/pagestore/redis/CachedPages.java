package io.mvbt.pagestore.redis;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

import io.mvbt.pagestore.StorageException;
import org.agrona.BufferUtil;

/**
 * The local copy of a remote store's pages: a sparse file, deleted as soon as it is created,
 * mapped in windows of 1 GiB that are never moved, so that a page's address stays valid. The
 * operating system keeps in memory what is used and writes back the rest, so memory is bounded by
 * the page cache, not by the store; a page never touched takes neither memory nor disk.
 *
 * <p>A page read from Redis is marked loaded; a page is copied in once and never changes after,
 * since a remote store never writes a page number twice.
 */
final class CachedPages implements AutoCloseable {
    static final int WINDOW_BYTES = 1 << 30;

    /** One mapping, and a bit per page that says it holds the page's bytes. */
    static final class Window {
        final MappedByteBuffer memory;
        final long address;
        final AtomicLongArray loaded;

        Window(MappedByteBuffer memory, int pages) {
            this.memory = memory;
            this.address = BufferUtil.address(memory);
            this.loaded = new AtomicLongArray((pages + 63) / 64);
        }

        boolean isLoaded(int index) {
            return (loaded.get(index >>> 6) & (1L << index)) != 0;
        }

        void markLoaded(int index) {
            long bit = 1L << index;
            int word = index >>> 6;
            long old;
            do {
                old = loaded.get(word);
            } while ((old & bit) == 0 && !loaded.compareAndSet(word, old, old | bit));
        }
    }

    private final Path path;
    private final FileChannel channel;
    final int pageShift;
    final int windowShift;
    final long windowMask;
    private volatile Window[] windows = new Window[0];

    CachedPages(Path directory, String name, int pageSize) {
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.windowShift = Integer.numberOfTrailingZeros(WINDOW_BYTES) - pageShift;
        this.windowMask = (1L << windowShift) - 1;
        try {
            Files.createDirectories(directory);
            this.path = Files.createTempFile(directory, "mvbt-" + name.replaceAll("[^A-Za-z0-9._-]", "_") + "-", ".cache");
            this.channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            Files.delete(path);
        } catch (IOException e) {
            throw new StorageException("cannot create the page cache file in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Pages in one window: a run of pages never crosses a window's end. */
    long windowPages() {
        return 1L << windowShift;
    }

    /** Maps windows until pages below {@code pageCount} are covered. */
    synchronized void cover(long pageCount) {
        int needed = (int) ((pageCount + windowMask) >>> windowShift);
        Window[] current = windows;
        if (needed <= current.length) {
            return;
        }
        Window[] grown = Arrays.copyOf(current, needed);
        for (int w = current.length; w < needed; w++) {
            try {
                grown[w] = new Window(channel.map(FileChannel.MapMode.READ_WRITE, (long) w * WINDOW_BYTES, WINDOW_BYTES),
                        (int) windowPages());
            } catch (IOException e) {
                throw new StorageException("cannot map the page cache file: " + e.getMessage(), e);
            }
        }
        windows = grown;
    }

    Window window(long pageNo) {
        return windows[(int) (pageNo >>> windowShift)];
    }

    int index(long pageNo) {
        return (int) (pageNo & windowMask);
    }

    long address(Window window, int index) {
        return window.address + ((long) index << pageShift);
    }

    /** The end of the window holding {@code pageNo}. */
    long windowEnd(long pageNo) {
        return (pageNo | windowMask) + 1;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // The file is deleted already; its space returns once the mappings are gone.
        }
    }
}
