// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.CorruptionException;
import io.mvbt.StorageException;
import io.mvbt.StoreLockedException;
import io.mvbt.WriterByAnotherNameException;

/**
 * Pages in a file, memory-mapped and read and written in place. Writing a page is a memory store:
 * a commit makes no system call. {@link #sync()} is one fdatasync, which on Linux also writes back
 * pages dirtied through the mapping. The file's length is a whole number of MiB (but for zeros
 * written ahead of the next growth, {@link #zeroAhead}); each growth maps only the new part, so
 * pages already mapped keep their page table entries.
 *
 * <p>The file grows by writing zeros, not by leaving a hole: a full disk then fails the growth with
 * an {@link StorageException} instead of killing the JVM with SIGBUS on a later store to the mapping.
 *
 * <p>A writer holds the writer lock of the store's {@link LockFile}, and a lock on the file itself
 * ({@link StoreFileLock}), so a second writer, in this process or another, by this name or another,
 * gets a {@link StoreLockedException}. A store opened with
 * {@link #openReadOnly} maps the file read-only, takes no writer lock and never writes the file; it
 * follows the writer's growth with {@link #follow}.
 */
public final class FilePageStore extends RegionPageStore {
    /** Largest single mapping (Java maps at most 2 GiB at once). */
    private static final long MAX_REGION_BYTES = 1L << 30;
    private static final long MAX_RUN_BYTES = 64L << 20;
    /**
     * The file grows by zeros written in pieces of this size, one base page each: the kernel caches
     * what one write brought in as one folio, and the write fault that the first store into a page
     * takes after writeback cleaned it walks every block of the page's folio, so larger pieces
     * make every such fault dearer. Pages read back from disk come in as cheap to fault as these.
     */
    public static final int GROWTH_WRITE_BYTES = 4 << 10;
    /** The zeros growth writes; shared and never written to, each growth reads it through a duplicate. */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(GROWTH_WRITE_BYTES);

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
    private final LockFile lockFile;
    /** A writer's lock on the store file itself, which holds {@link #channel}; null if read-only. */
    private final StoreFileLock storeLock;
    /** The file's identity, for a read-only store ({@link StoreFileLock#channelClosed}). */
    private final Object fileKey;
    private final boolean created;
    private final boolean readOnly;
    /** Writers in several processes take turns ({@link #openShared}). */
    private final boolean shared;
    /** Bytes of the file in use: its length rounded down to whole chunks. */
    private long fileBytes;
    /**
     * The file's length: {@link #fileBytes}, or more while zeros written ahead of the next growth
     * ({@link #zeroAhead}) wait past the end.
     */
    private long zeroedBytes;
    /**
     * No zeros are written ahead past this: a truncation sets it to the new end, so that zeros
     * the background thread was still writing for a growth before it do not come back; the next
     * growth lifts it.
     */
    private long zeroAheadLimit = Long.MAX_VALUE;

    private FilePageStore(Path path, int pageSize, FileChannel channel, LockFile lockFile, boolean created,
            boolean readOnly, boolean shared, StoreFileLock storeLock, Object fileKey) {
        super(pageSize);
        this.path = path;
        this.channel = channel;
        this.lockFile = lockFile;
        this.storeLock = storeLock;
        this.fileKey = fileKey;
        this.created = created;
        this.readOnly = readOnly;
        this.shared = shared;
    }

    /**
     * Opens (or creates) a store file for writing, taking the writer lock.
     *
     * @param newPageSize page size for a file that is created now
     * @param existing reads the page size of a file that exists already
     * @param readerSlots slots of the reader table if this open creates it
     */
    public static FilePageStore open(Path path, int newPageSize, PageSizeReader existing, int readerSlots) {
        return open(path, newPageSize, existing, readerSlots, -1);
    }

    /**
     * Opens (or creates) a store file for writers in several processes that take turns, one
     * transaction at a time ({@link #takeTurn}). Returns holding the turn, so that the store is
     * created or recovered alone; the caller ends it.
     *
     * @param turnTimeoutNanos how long to wait for the turn of another process to end
     */
    public static FilePageStore openShared(Path path, int newPageSize, PageSizeReader existing, int readerSlots,
            long turnTimeoutNanos) {
        return open(path, newPageSize, existing, readerSlots, Math.max(0, turnTimeoutNanos));
    }

    private static FilePageStore open(Path path, int newPageSize, PageSizeReader existing, int readerSlots,
            long turnTimeoutNanos) {
        NativeAccess.require();
        if (java.nio.file.Files.exists(path) && !java.nio.file.Files.isRegularFile(path)) {
            // Checked before the lock file beside it is made, which would be left behind.
            throw new StorageException("cannot open store file " + path + ": not a regular file");
        }
        boolean shared = turnTimeoutNanos >= 0;
        refuseIfNotAStore(path, existing);
        LockFile lockFile = LockFile.open(path, readerSlots);
        StoreFileLock storeLock = null;
        boolean locked = false;
        try {
            if (shared) {
                lockFile.joinSharedWriters(path.toString());
                locked = true;
                if (!lockFile.takeWriterTurn(turnTimeoutNanos)) {
                    long pid = lockFile.writerPid();
                    throw new StoreLockedException("store " + path + " is in a write transaction of another process"
                            + (pid > 0 ? " (pid " + pid + ")" : "") + " for longer than "
                            + java.time.Duration.ofNanos(turnTimeoutNanos));
                }
            } else {
                lockFile.lockWriter(path.toString());
                locked = true;
            }
            storeLock = StoreFileLock.open(path, shared, lockFile);
            FileChannel channel = storeLock.channel();
            long size = channel.size();
            int pageSize = size == 0 ? 0 : existing.pageSize(channel, size);
            // A file whose creation was cut short holds only zeros: it is created again.
            boolean created = pageSize == 0;
            if (created) {
                pageSize = newPageSize;
            }
            FilePageStore store = new FilePageStore(path, pageSize, channel, lockFile, created, false, shared,
                    storeLock, null);
            // Bytes past the last whole chunk hold only zeros, of a growth cut short: they are ignored.
            store.mapExisting(created ? 0 : size / CHUNK_BYTES * CHUNK_BYTES);
            return store;
        } catch (IOException e) {
            closeQuietly(storeLock);
            release(lockFile, locked);
            throw new StorageException("cannot open store file " + path + ": " + reason(e), e);
        } catch (RuntimeException | Error e) {
            closeQuietly(storeLock);
            release(lockFile, locked);
            throw e;
        }
    }

    /**
     * Opens an existing store file for reading only: mapped read-only, no writer lock, nothing ever
     * written to it (the lock file beside it is written: it holds the reader table). Refused with
     * {@link WriterByAnotherNameException} if a sole writer writes it beside another lock file.
     */
    public static FilePageStore openReadOnly(Path path, PageSizeReader existing, int readerSlots) {
        NativeAccess.require();
        if (!java.nio.file.Files.isRegularFile(path)) {
            throw new StorageException("no store file at " + path);
        }
        refuseIfNotAStore(path, existing);
        LockFile lockFile = LockFile.open(path, readerSlots);
        FileChannel channel = null;
        Object fileKey = null;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
            fileKey = StoreFileLock.keyOf(path);
            StoreFileLock.refuseUnseenWriter(path, channel, fileKey, lockFile);
            long size = channel.size();
            int pageSize = size == 0 ? 0 : existing.pageSize(channel, size);
            if (pageSize == 0) {
                throw new CorruptionException(-1, "store file " + path + " holds no store yet");
            }
            FilePageStore store = new FilePageStore(path, pageSize, channel, lockFile, false, true, false, null,
                    fileKey);
            store.follow();
            return store;
        } catch (IOException e) {
            closeReadOnly(channel, fileKey);
            lockFile.close();
            throw new StorageException("cannot open store file " + path + ": " + reason(e), e);
        } catch (RuntimeException | Error e) {
            closeReadOnly(channel, fileKey);
            lockFile.close();
            throw e;
        }
    }

    /**
     * Refuses a file that is not a store (nor one whose creation was cut short) before the lock
     * file beside it is made: a failed open must not leave a lock file behind. The open reads the
     * page size again under its locks; this look only keeps strangers out.
     */
    private static void refuseIfNotAStore(Path path, PageSizeReader existing) {
        try {
            StoreFileLock.look(path, channel -> {
                long size = channel.size();
                if (size > 0) {
                    existing.pageSize(channel, size);
                }
            });
        } catch (IOException e) {
            throw new StorageException("cannot open store file " + path + ": " + reason(e), e);
        }
    }

    /**
     * What went wrong, with its kind: a file-system exception's message is often just the path
     * ("access denied" is in the class name alone).
     */
    static String reason(IOException e) {
        if (e instanceof java.nio.channels.ClosedByInterruptException) {
            return "the thread was interrupted, and an interrupt during file I/O closes the file's channel for good"
                    + " (reopen the store)";
        }
        if (e instanceof java.nio.channels.ClosedChannelException) {
            return "the file's channel is closed (an interrupt of a thread doing file I/O closes it for every thread;"
                    + " reopen the store)";
        }
        String kind = e.getClass().getSimpleName().replace("Exception", "");
        return kind + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    private static void release(LockFile lockFile, boolean locked) {
        if (locked) {
            lockFile.unlockWriter();
        }
        lockFile.close();
    }

    /** The lock file that guards a store file. */
    public static Path lockPathOf(Path path) {
        return LockFile.lockPathOf(path);
    }

    /** The lock file: the writer lock and the reader table shared by processes. */
    public LockFile lockFile() {
        return lockFile;
    }

    /** Whether the store was opened with {@link #openReadOnly}. */
    public boolean readOnly() {
        return readOnly;
    }

    /**
     * Maps what the writer has added to the file since (read-only stores): every whole chunk of
     * the file's current length. Pages past a later truncation stay mapped and are never touched.
     */
    public synchronized void follow() {
        checkOpen();
        for (int attempt = 1;; attempt++) {
            try {
                long bytes = channel.size() / CHUNK_BYTES * CHUNK_BYTES;
                if (bytes > fileBytes) {
                    mapUpTo(bytes / pageSize());
                    fileBytes = bytes;
                }
                setPageCount(Math.max(pageCount(), bytes / pageSize()));
                return;
            } catch (java.nio.channels.ClosedChannelException e) {
                // An interrupt closed the channel, and with it this JVM's locks on the file.
                StoreFileLock.channelClosed(fileKey);
                throw new StorageException("cannot map " + path + ": the channel was closed (an interrupt of the "
                        + "reading thread closes it); reopen the store", e);
            } catch (IOException e) {
                // The writer may have cut the file (a free tail, zeros written ahead) between its
                // length and the mapping, which then reaches past the end: look again.
                if (attempt == 3) {
                    throw new StorageException("cannot map " + path + ": " + reason(e), e);
                }
            }
        }
    }

    /** Whether writers of several processes take turns on the file ({@link #openShared}). */
    public boolean shared() {
        return shared;
    }

    /**
     * Waits up to {@code timeoutNanos} for the writer of another process to end its transaction
     * and takes the writer lock (stores opened with {@link #openShared}); false on timeout. The
     * file may have grown or shrunk meanwhile: {@link #resync} follows it.
     */
    public boolean takeTurn(long timeoutNanos) {
        checkOpen();
        return lockFile.takeWriterTurn(timeoutNanos);
    }

    /** {@link #takeTurn(long)}, giving up (false) as soon as {@code giveUp} says so (a close began, say). */
    public boolean takeTurn(long timeoutNanos, java.util.function.BooleanSupplier giveUp) {
        checkOpen();
        return lockFile.takeWriterTurn(timeoutNanos, giveUp);
    }

    /** Ends the turn taken by {@link #takeTurn} or {@link #openShared}. */
    public void endTurn() {
        lockFile.endWriterTurn();
    }

    /**
     * Takes the file's length as another writer left it (in a turn): maps what it added, and the
     * page count becomes exactly its whole chunks, whether it grew or shrank.
     */
    public synchronized void resync() {
        checkWritable();
        try {
            long bytes = channel.size() / CHUNK_BYTES * CHUNK_BYTES;
            if (bytes > fileBytes) {
                mapUpTo(bytes / pageSize());
            }
            fileBytes = bytes;
            zeroedBytes = bytes;
            setPageCount(bytes / pageSize());
        } catch (IOException e) {
            throw new StorageException("cannot map " + path + ": " + reason(e), e);
        }
    }

    /** Whether the file was empty when opened (a new store). */
    public boolean created() {
        return created;
    }

    /** Bytes the store uses of its file. */
    public synchronized long fileBytes() {
        return fileBytes;
    }

    private void mapExisting(long bytes) throws IOException {
        fileBytes = bytes;
        zeroedBytes = bytes;
        mapUpTo(bytes / pageSize());
        setPageCount(bytes / pageSize());
    }

    @Override
    ByteBuffer mapRun(long pageNo, int pages) {
        try {
            FileChannel.MapMode mode = readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE;
            return channel.map(mode, pageNo * pageSize(), (long) pages * pageSize());
        } catch (IOException e) {
            throw new StorageException("cannot map the run of " + pages + " pages at page " + pageNo + " of " + path
                    + ": " + reason(e), e);
        }
    }

    /** Maps the file from the end of what is mapped up to {@code pages}, in regions of at most 1 GiB. */
    private void mapUpTo(long pages) throws IOException {
        long covered = coveredPages();
        while (covered < pages) {
            long bytes = Math.min((pages - covered) * pageSize(), MAX_REGION_BYTES);
            FileChannel.MapMode mode = readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE;
            addRegion(channel.map(mode, covered * pageSize(), bytes), covered);
            covered = coveredPages();
        }
    }

    @Override
    public synchronized void extend(long newPageCount) {
        checkWritable();
        long pages = roundUpToChunk(newPageCount);
        long newBytes = pages * pageSize();
        if (newBytes <= fileBytes) {
            return;
        }
        long oldBytes = fileBytes;
        try {
            // Zeros written ahead are used as they are.
            writeZeros(channel, Math.max(oldBytes, zeroedBytes), newBytes);
            zeroedBytes = Math.max(zeroedBytes, newBytes);
            zeroAheadLimit = Long.MAX_VALUE;
            fileBytes = newBytes;
            mapUpTo(pages);
            setPageCount(pages);
        } catch (IOException e) {
            // Give back what was written; the store keeps its old size.
            try {
                channel.truncate(oldBytes);
            } catch (IOException ignored) {
                // The old pages are intact either way.
            }
            fileBytes = oldBytes;
            zeroedBytes = oldBytes;
            throw new StorageException("cannot grow " + path + " to " + newBytes + " bytes: " + reason(e), e);
        }
    }

    /**
     * Writes up to {@code maxBytes} of the zeros that a growth to {@code newPageCount} pages needs,
     * past the end, so that the growth itself finds them written: a background thread calls it, and
     * a writer that grows by 64 MiB no longer stops for the 16,384 writes. Returns whether zeros are
     * still missing. Not for files whose writers take turns: another process would take these pages
     * for its own. Failures (a full disk) are left to the growth, which reports them.
     */
    public synchronized boolean zeroAhead(long newPageCount, long maxBytes) {
        if (readOnly || shared || isClosed()) {
            return false;
        }
        long target = Math.min(roundUpToChunk(newPageCount) * pageSize(), zeroAheadLimit);
        long from = Math.max(fileBytes, zeroedBytes);
        if (from >= target) {
            return false;
        }
        long to = Math.min(target, from + maxBytes);
        try {
            writeZeros(channel, from, to);
            zeroedBytes = to;
            return to < target;
        } catch (IOException e) {
            dropZerosQuietly();
            return false;
        }
    }

    /** Cuts the file back to the pages in use; a failure leaves zeros that the next open takes as free pages. */
    private void dropZerosQuietly() {
        try {
            channel.truncate(fileBytes);
        } catch (IOException ignored) {
            // The pages in use are intact either way.
        }
        zeroedBytes = fileBytes;
    }

    /**
     * Writes zeros over {@code [from, to)} of a file, in the pieces growth uses
     * ({@link #GROWTH_WRITE_BYTES}): the lock file's too.
     */
    static void writeZeros(FileChannel channel, long from, long to) throws IOException {
        ByteBuffer zeros = ZEROS.duplicate();
        long position = from;
        while (position < to) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), to - position));
            position += channel.write(zeros, position);
        }
    }

    @Override
    public synchronized void truncate(long newPageCount) {
        checkWritable();
        long pages = roundUpToChunk(newPageCount);
        long newBytes = pages * pageSize();
        if (newBytes >= zeroedBytes) {
            return;
        }
        try {
            if (newBytes < fileBytes) {
                // Mappings past the new end stay: nobody touches those pages, and a later growth uses them again.
                setPageCount(pages);
                fileBytes = newBytes;
            }
            channel.truncate(newBytes);
            zeroedBytes = newBytes;
            zeroAheadLimit = newBytes;
        } catch (IOException e) {
            throw new StorageException("cannot truncate " + path + " to " + newBytes + " bytes: " + reason(e), e);
        }
    }


    /**
     * Takes, in the calling thread, the write fault that the next store to each of {@code count}
     * pages from {@code pageNos[from]} on would take (writeback of a checkpoint cleaned them), so
     * that the writer that uses them later does not. A hint: the pages' bytes stay as they are, even
     * under a concurrent write, and pages past the end are skipped. Synchronized with
     * {@link #truncate}, so that no page it touches is cut off under it.
     */
    public synchronized void prefault(long[] pageNos, int from, int count) {
        if (readOnly) {
            return;
        }
        long pages = pageCount();
        for (int i = from; i < from + count; i++) {
            if (pageNos[i] < pages) {
                long address = address(pageNos[i]);
                // A compare-and-set of the word to itself: a store, so the fault is taken, that can
                // only ever write what the word holds at that instant.
                long word = UNSAFE.getLongVolatile(null, address);
                UNSAFE.compareAndSwapLong(null, address, word, word);
            }
        }
    }

    @Override
    public int maxRunPages() {
        return (int) (MAX_RUN_BYTES / pageSize());
    }

    @Override
    public void write(long pageNo, ByteBuffer source) {
        checkWritable();
        long position = pageNo * pageSize();
        try {
            while (source.hasRemaining()) {
                position += channel.write(source, position);
            }
        } catch (IOException e) {
            throw new StorageException("cannot write page " + pageNo + " of " + path + ": " + reason(e), e);
        }
    }

    @Override
    public void written(long pageNo, int pages) {
        // The mapping is the file: nothing to track.
    }

    @Override
    public void sync() {
        checkWritable();
        try {
            channel.force(false);
        } catch (IOException e) {
            throw new StorageException("fdatasync of " + path + " failed: " + reason(e), e);
        }
    }

    /**
     * An msync of the page: on Linux an fdatasync of that range (the page, written through the
     * mapping or positionally, and the file's size as the journal holds it).
     */
    @Override
    public void syncPage(long pageNo) {
        checkWritable();
        try {
            forceMappedPage(pageNo);
        } catch (java.io.UncheckedIOException e) {
            throw new StorageException("msync of page " + pageNo + " of " + path + " failed: " + reason(e.getCause()), e);
        }
    }

    @Override
    public boolean durable() {
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
        if (zeroedBytes > fileBytes) {
            dropZerosQuietly();
        }
        // Mappings are not unmapped by hand: a thread still reading would crash the JVM. The garbage
        // collector unmaps them once the store is unreachable.
        if (readOnly) {
            closeReadOnly(channel, fileKey);
        } else {
            closeQuietly(storeLock);
            lockFile.unlockWriter();
        }
        lockFile.close();
    }

    private void checkWritable() {
        checkOpen();
        if (readOnly) {
            throw new IllegalStateException("store file " + path + " is open read-only");
        }
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

    private static void closeQuietly(StoreFileLock storeLock) {
        if (storeLock != null) {
            try {
                storeLock.close();
            } catch (IOException ignored) {
                // Nothing was written through it that a close could lose.
            }
        }
    }

    /** Closes a read-only channel; a writer of the same file in this JVM takes its lock again. */
    private static void closeReadOnly(FileChannel channel, Object fileKey) {
        if (channel != null) {
            closeQuietly(channel);
            StoreFileLock.channelClosed(fileKey);
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
