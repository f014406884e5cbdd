package io.mvbt.pagestore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Pages in a file, memory-mapped in windows of 1 GiB, read and written in place. Writing a page is
 * a memory store: a commit that writes no file metadata makes no system call. {@link #sync()} is one
 * fdatasync, which on Linux also writes back pages dirtied through the mapping.
 *
 * <p>The file grows by writing zeros, not by leaving a hole: a full disk then fails the growth with
 * an {@link StorageException} instead of killing the JVM with SIGBUS on a later store to the mapping.
 *
 * <p>A writer holds an exclusive lock on a lock file beside the store ({@code <file>-lock}), so a
 * second writer, in this process or another, gets a {@link StoreLockedException}.
 */
public final class FilePageStore extends WindowedPageStore {
    private static final int WINDOW_BYTES = 1 << 30;
    private static final int ZERO_CHUNK = 1 << 20;

    /** Reads the page size of an existing file before it is mapped. */
    @FunctionalInterface
    public interface PageSizeReader {
        /**
         * Returns the page size the file was created with, 0 if the file holds nothing yet (only
         * zeros), or throws {@link CorruptionException}.
         */
        int pageSize(FileChannel channel, long fileSize) throws IOException;
    }

    private final Path path;
    private final FileChannel channel;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final boolean created;
    private long fileBytes;

    private FilePageStore(Path path, int pageSize, FileChannel channel, FileChannel lockChannel, FileLock lock,
            boolean created, long fileBytes) {
        super(pageSize, WINDOW_BYTES);
        this.path = path;
        this.channel = channel;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.created = created;
        this.fileBytes = fileBytes;
    }

    /**
     * Opens (or creates) a store file for writing, taking the writer lock.
     *
     * @param newPageSize page size for a file that is created now
     * @param existing reads the page size of a file that exists already
     */
    public static FilePageStore open(Path path, int newPageSize, PageSizeReader existing) {
        NativeAccess.require();
        Path lockPath = lockPathOf(path);
        FileChannel lockChannel = null;
        FileChannel channel = null;
        try {
            lockChannel = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = lockChannel.tryLock(0, 1, false);
            } catch (OverlappingFileLockException e) {
                throw new StoreLockedException("store " + path + " is already open for writing in this JVM");
            }
            if (lock == null) {
                throw new StoreLockedException("store " + path
                        + " is open for writing in another process (it holds the lock on " + lockPath + ")");
            }
            channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            long size = channel.size();
            int pageSize = size == 0 ? 0 : existing.pageSize(channel, size);
            // A file whose creation was cut short holds only zeros: it is created again.
            boolean created = pageSize == 0;
            if (created) {
                pageSize = newPageSize;
            }
            FilePageStore store = new FilePageStore(path, pageSize, channel, lockChannel, lock, created, size);
            store.mapAll();
            return store;
        } catch (IOException e) {
            closeQuietly(channel);
            closeQuietly(lockChannel);
            throw new StorageException("cannot open store file " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            closeQuietly(lockChannel);
            throw e;
        }
    }

    /** The lock file that guards a store file. */
    public static Path lockPathOf(Path path) {
        return path.resolveSibling(path.getFileName() + "-lock");
    }

    /** Whether the file was empty when opened (a new store). */
    public boolean created() {
        return created;
    }

    /** Bytes the file holds now. */
    public synchronized long fileBytes() {
        return fileBytes;
    }

    private void mapAll() throws IOException {
        long pages = fileBytes / pageSize();
        setPageCount(pages);
        int windows = (int) ((fileBytes + windowBytes() - 1) / windowBytes());
        for (int i = 0; i < windows; i++) {
            mapWindow(i);
        }
    }

    private void mapWindow(int index) throws IOException {
        long start = index * windowBytes();
        long length = Math.min(windowBytes(), fileBytes - start);
        MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, start, length);
        setWindow(index, mapping);
    }

    @Override
    public synchronized void extend(long newPageCount) {
        checkOpen();
        long newBytes = newPageCount * pageSize();
        if (newBytes <= fileBytes) {
            if (newPageCount > pageCount()) {
                setPageCount(newPageCount);
            }
            return;
        }
        long oldBytes = fileBytes;
        try {
            ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(ZERO_CHUNK, newBytes - oldBytes));
            long position = oldBytes;
            while (position < newBytes) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), newBytes - position));
                position += channel.write(zeros, position);
            }
            fileBytes = newBytes;
            int firstChanged = (int) (oldBytes / windowBytes());
            int windows = (int) ((newBytes + windowBytes() - 1) / windowBytes());
            for (int i = firstChanged; i < windows; i++) {
                mapWindow(i);
            }
            setPageCount(newPageCount);
        } catch (IOException e) {
            // Give back what was written; the store keeps its old size.
            try {
                channel.truncate(oldBytes);
            } catch (IOException ignored) {
                // The old pages are intact either way.
            }
            fileBytes = oldBytes;
            throw new StorageException("cannot grow " + path + " to " + newBytes + " bytes: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void truncate(long newPageCount) {
        checkOpen();
        long newBytes = newPageCount * pageSize();
        if (newBytes >= fileBytes) {
            return;
        }
        try {
            setPageCount(newPageCount);
            int windows = (int) ((newBytes + windowBytes() - 1) / windowBytes());
            dropWindowsFrom(windows);
            channel.truncate(newBytes);
            fileBytes = newBytes;
            if (windows > 0 && newBytes % windowBytes() != 0) {
                mapWindow(windows - 1);
            }
        } catch (IOException e) {
            throw new StorageException("cannot truncate " + path + " to " + newBytes + " bytes: " + e.getMessage(), e);
        }
    }

    @Override
    public void written(long pageNo, int pages) {
        // The mapping is the file: nothing to track.
    }

    @Override
    public void sync() {
        checkOpen();
        try {
            channel.force(false);
        } catch (IOException e) {
            throw new StorageException("fdatasync of " + path + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean durable() {
        return true;
    }

    @Override
    public boolean reusesPages() {
        return true;
    }

    @Override
    public String describe() {
        return path.toString();
    }

    /** The path of the store file. */
    public Path path() {
        return path;
    }

    @Override
    public synchronized void close() {
        if (!markClosed()) {
            return;
        }
        // Mappings are not unmapped by hand: a thread still reading would crash the JVM. The garbage
        // collector unmaps them once the store is unreachable.
        closeQuietly(channel);
        try {
            lock.release();
        } catch (IOException ignored) {
            // Closing the channel releases it too.
        }
        closeQuietly(lockChannel);
    }

    /** Reads {@code length} bytes at {@code offset} of an open channel; fewer if the file is shorter. */
    public static ByteBuffer readAt(FileChannel channel, long offset, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, offset + buffer.position());
            if (n < 0) {
                break;
            }
        }
        return buffer.flip();
    }

    /** Whether a store file exists and holds anything. */
    public static boolean exists(Path path) {
        try {
            return Files.exists(path) && Files.size(path) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Nothing more can be done.
            }
        }
    }
}
