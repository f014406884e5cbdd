// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.CorruptionException;
import io.mvbt.StorageException;
import io.mvbt.StoreLockedException;

/**
 * The lock file beside a store file ({@code <file>-lock}): the writer lock, and the table of
 * revisions that snapshots hold, memory-mapped and shared by every process that opens the store.
 * Its contents live only as long as some process uses it: the first opener after all users are
 * gone (found by a lock each user holds shared) initializes it afresh, so slots of processes that
 * died are never trusted across such a restart. A lock file that a process created is removed by
 * it when it is the last to close it, so that a store only looked at is left as it was found; one
 * found already there (made by another process, or by an administrator with chosen permissions)
 * stays.
 *
 * <pre>
 * header (512 bytes):    0 u64 magic "mvbt-lck"   8 u32 version   12 u32 slot bytes   16 u32 slots
 *                       20 u32 entries of the freed-page log (0 until a writer that takes turns opens)
 *                       64 u32 slots ever claimed (the writer scans no further)
 *                      128 u64 newest meta: sequence &lt;&lt; 2 | slot (0: none published since initialization)
 *                      192 u64 pid of the writer (0: none)
 *                      256 u64 entries ever appended to the freed-page log
 *                      320 u64 pid of the sole writer holding the store file's own lock (0: none)
 * then one slot of {@link #SLOT_BYTES} per snapshot, then the freed-page log (a ring of
 * {@link #FREED_ENTRY_BYTES}-byte entries, written by writers that take turns; the first of them to
 * open grows the file by it, so a sole writer's lock file is the header and the slots: 64 KiB)
 * byte locks (fcntl): 0 the writer, exclusive (a sole writer holds it while open; writers that
 *                     take turns hold it per transaction); 1 initialization, exclusive and brief;
 *                     2 presence, shared by every process using the file;
 *                     3 writers: exclusive by a sole writer, shared by writers that take turns
 * </pre>
 *
 * POSIX releases all of a process's locks on a file when any descriptor of it is closed, so this
 * JVM opens each lock file once and shares it between stores ({@link #open} counts references).
 */
public final class LockFile implements AutoCloseable {
    static final long MAGIC = 0x6b636c2d7462766dL; // "mvbt-lck" little-endian
    static final int VERSION = 4;
    public static final int HEADER_BYTES = 512;
    public static final int SLOT_BYTES = 64;
    public static final int HIGH_WATER = 64;
    public static final int PUBLISHED = 128;
    public static final int WRITER_PID = 192;
    public static final int FREED_SEQUENCE = 256;
    /** Pid of the sole writer that holds the lock on the store file itself ({@link StoreFileLock}), 0 none. */
    public static final int FILE_LOCK_HOLDER = 320;
    public static final int FREED_ENTRY_BYTES = 32;
    /** Entries of the freed-page log: two MiB, commits of several thousand freed runs between two turns. */
    static final int FREED_ENTRIES = 1 << 16;
    /** Most reader slots a table has ({@code StoreOptions.maxReaders} allows no more). */
    static final int MAX_SLOTS = 1 << 20;
    private static final int FREED_CAPACITY_OFFSET = 20;
    private static final int VERSION_OFFSET = 8;
    private static final int SLOT_BYTES_OFFSET = 12;
    private static final int SLOTS_OFFSET = 16;
    private static final long WRITER_LOCK = 0;
    private static final long INIT_LOCK = 1;
    private static final long PRESENCE_LOCK = 2;
    private static final long WRITERS_LOCK = 3;
    /** Opens that meet a lock file removed or made by another process in between before giving up. */
    private static final int MAX_OPEN_ATTEMPTS = 100;
    /** Longest pause between two tries for the writer lock while another process holds it. */
    private static final long MAX_TURN_POLL_NANOS = 1_000_000L;

    private static final Map<Path, LockFile> OPEN = new HashMap<>();

    private final Path path;
    private final FileChannel channel;
    private final FileLock presence;
    private final AtomicBuffer header;
    private final AtomicBuffer table;
    /** Mapped by {@link #freedLog()} on first use. */
    private AtomicBuffer freedLog;
    private final int slots;
    private int references = 1;
    /** The identity of the file if this JVM created it (and so removes it when last to close), else null. */
    private final Object createdFileKey;
    private FileLock writerLock;
    /** Byte 3, held while a store of this JVM is open for writing (exclusive or shared). */
    private FileLock writersLock;

    private LockFile(Path path, FileChannel channel, FileLock presence, MappedByteBuffer map, int slots,
            Object createdFileKey) {
        this.path = path;
        this.createdFileKey = createdFileKey;
        this.channel = channel;
        this.presence = presence;
        this.header = new UnsafeBuffer(map, 0, HEADER_BYTES);
        this.table = new UnsafeBuffer(map, HEADER_BYTES, slots * SLOT_BYTES);
        this.slots = slots;
    }

    /**
     * Opens the lock file of {@code storePath}, creating or initializing it with {@code newSlots}
     * reader slots if no other process uses it; else it keeps the slot count it has. A lock file
     * this JVM creates is removed again by the last process to close it, if that is this JVM
     * ({@link #close}): a store that was only looked at is left as it was found.
     */
    public static synchronized LockFile open(Path storePath, int newSlots) {
        if (newSlots < 1) {
            throw new IllegalArgumentException("reader slots must be at least 1, not " + newSlots);
        }
        Path path = lockPathOf(storePath);
        FileChannel channel = null;
        try {
            // Looked up before any descriptor is opened: closing a second one would drop our locks.
            Path key = keyOf(path);
            LockFile shared = OPEN.get(key);
            if (shared != null) {
                shared.references++;
                return shared;
            }
            for (int attempt = 1; ; attempt++) {
                Object before = fileKey(path);
                // Made by this open only if it was not there (a platform without file keys says null for both).
                boolean absent = before == null && !java.nio.file.Files.exists(path);
                try {
                    channel = absent
                            ? FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                                    StandardOpenOption.WRITE)
                            : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
                } catch (java.nio.file.FileAlreadyExistsException | java.nio.file.NoSuchFileException e) {
                    // Made or removed by another process just now: look again.
                    if (attempt == MAX_OPEN_ATTEMPTS) {
                        throw e;
                    }
                    continue;
                }
                Object opened = fileKey(path);
                // The same file before and after the open is the file the channel has. A platform
                // that names no file identity (null while the file is there) never removes it.
                boolean identified = opened != null || !java.nio.file.Files.exists(path);
                LockFile lockFile = !identified ? initialize(path, channel, newSlots, null, false)
                        : opened == null || before != null && !before.equals(opened) ? null
                        : initialize(path, channel, newSlots, opened, absent);
                if (lockFile != null) {
                    OPEN.put(key, lockFile);
                    return lockFile;
                }
                closeQuietly(channel);
                channel = null;
                if (attempt == MAX_OPEN_ATTEMPTS) {
                    throw new StorageException("cannot open lock file " + path + ": other processes kept removing"
                            + " and making it again");
                }
            }
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StorageException("cannot open lock file " + path + ": " + FilePageStore.reason(e)
                    + " (every process that opens the store, readers too, needs to write it)", e);
        } catch (RuntimeException | Error e) {
            // An Error too (mapping a lock file on a full disk): the channel and its locks must go.
            closeQuietly(channel);
            throw e;
        }
    }

    /**
     * The identity of the file at {@code path} (device and inode), or null if there is none or the
     * platform does not say; a file removed and made again has a new one.
     */
    private static Object fileKey(Path path) throws IOException {
        try {
            return java.nio.file.Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class)
                    .fileKey();
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    /**
     * Initializes or joins the file {@code channel} has open, whose identity is {@code fileKey}
     * (null if the platform names none); null if its last user removed it while this open waited
     * for the initialization lock.
     */
    private static LockFile initialize(Path path, FileChannel channel, int newSlots, Object fileKey,
            boolean created) throws IOException {
        try (FileLock init = channel.lock(INIT_LOCK, 1, false)) {
            if (fileKey != null && !fileKey.equals(fileKey(path))) {
                // Its last user removes it holding this lock (see close): joining it would give this
                // process a reader table nobody else sees.
                return null;
            }
            FileLock alone = channel.tryLock(PRESENCE_LOCK, 1, false);
            int slots;
            MappedByteBuffer map;
            if (alone != null) {
                // Nobody else uses the file: whatever it holds is left over from processes now gone.
                slots = newSlots;
                long bytes = HEADER_BYTES + (long) slots * SLOT_BYTES;
                channel.truncate(0);
                // Zeros written first, as for the store file: a store through the mapping into a hole
                // on a full disk would be a SIGBUS; a write reports it as an IOException here.
                FilePageStore.writeZeros(channel, 0, bytes);
                map = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
                UnsafeBuffer fresh = new UnsafeBuffer(map);
                for (int s = 0; s < slots; s++) {
                    fresh.putLong(HEADER_BYTES + s * SLOT_BYTES, -1);
                }
                fresh.putInt(VERSION_OFFSET, VERSION);
                fresh.putInt(SLOT_BYTES_OFFSET, SLOT_BYTES);
                fresh.putInt(SLOTS_OFFSET, slots);
                fresh.putInt(FREED_CAPACITY_OFFSET, 0);
                fresh.putLongVolatile(0, MAGIC);
                alone.release();
            } else {
                long size = channel.size();
                if (size < HEADER_BYTES) {
                    throw new CorruptionException(-1, "lock file " + path + " is in use but has no header (" + size
                            + " bytes); an older mvbt may have it open");
                }
                UnsafeBuffer head = new UnsafeBuffer(channel.map(FileChannel.MapMode.READ_ONLY, 0, HEADER_BYTES));
                if (head.getLong(0) == MAGIC && head.getInt(VERSION_OFFSET) != VERSION) {
                    // Not damage: a process of another release has the store open.
                    throw new StoreLockedException("lock file " + path + " is in use by a process of another mvbt "
                            + "release (reader table version " + head.getInt(VERSION_OFFSET) + ", this release "
                            + VERSION + "); stop every process that uses the store before upgrading");
                }
                if (head.getLong(0) != MAGIC || head.getInt(SLOT_BYTES_OFFSET) != SLOT_BYTES) {
                    throw new CorruptionException(-1, "lock file " + path + " is in use but its header is not an "
                            + "mvbt reader table of version " + VERSION);
                }
                slots = head.getInt(SLOTS_OFFSET);
                int freedEntries = head.getInt(FREED_CAPACITY_OFFSET);
                long bytes = HEADER_BYTES + (long) slots * SLOT_BYTES + (long) freedEntries * FREED_ENTRY_BYTES;
                if (slots < 1 || slots > MAX_SLOTS || freedEntries != 0 && freedEntries != FREED_ENTRIES
                        || size < bytes) {
                    throw new CorruptionException(-1, "lock file " + path + " says " + slots + " slots and "
                            + freedEntries + " freed-page entries but holds " + size + " bytes");
                }
                map = channel.map(FileChannel.MapMode.READ_WRITE, 0, HEADER_BYTES + (long) slots * SLOT_BYTES);
            }
            FileLock presence = channel.lock(PRESENCE_LOCK, 1, true);
            return new LockFile(path, channel, presence, map, slots, created ? fileKey : null);
        }
    }

    /** One name per file, whichever way it was reached. */
    private static Path keyOf(Path path) throws IOException {
        if (java.nio.file.Files.exists(path)) {
            return path.toRealPath();
        }
        Path parent = path.toAbsolutePath().getParent();
        return parent.toRealPath().resolve(path.getFileName());
    }

    /**
     * The lock file that guards a store file: beside the file itself, so that a store reached
     * through a symbolic link has the same lock file (and reader table) as through its own name.
     */
    public static Path lockPathOf(Path storePath) {
        Path store = storePath;
        try {
            if (java.nio.file.Files.exists(storePath)) {
                store = storePath.toRealPath();
            } else {
                // A link to a store not made yet leads where the store will be (a loop stops at 40).
                for (int hop = 0; hop < 40 && java.nio.file.Files.isSymbolicLink(store); hop++) {
                    store = store.resolveSibling(java.nio.file.Files.readSymbolicLink(store));
                }
            }
        } catch (IOException e) {
            // Unreadable links are reported by whatever opens the store next.
        }
        return store.resolveSibling(store.getFileName() + "-lock");
    }

    /**
     * Takes the writer lock for {@code store} until {@link #unlockWriter}: the only writer. Throws
     * {@link StoreLockedException} if a store in this JVM or another process writes it.
     */
    public synchronized void lockWriter(String store) {
        joinWriters(store, false);
        try {
            if (!tryWriterLock()) {
                throw lockedByAnother(store);
            }
        } catch (RuntimeException e) {
            leaveWriters();
            throw e;
        }
    }

    /**
     * Joins the writers of {@code store} that take turns ({@link #takeWriterTurn}); throws
     * {@link StoreLockedException} if this JVM writes it already or a sole writer has it.
     */
    public synchronized void joinSharedWriters(String store) {
        joinWriters(store, true);
    }

    private void joinWriters(String store, boolean shared) {
        if (writersLock != null) {
            throw new StoreLockedException("store " + store + " is already open for writing in this JVM");
        }
        FileLock lock = tryLock(WRITERS_LOCK, shared);
        if (lock == null) {
            throw shared || !sharedWritersPresent() ? lockedByAnother(store)
                    : new StoreLockedException("store " + store + " is open for writing by processes that take turns"
                            + " (StoreOptions.sharedWriters); open it that way too");
        }
        writersLock = lock;
    }

    /** Whether the processes writing the store take turns (they hold the writers' byte shared). */
    private boolean sharedWritersPresent() {
        try (FileLock probe = channel.tryLock(WRITERS_LOCK, 1, true)) {
            return probe != null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Waits up to {@code timeoutNanos} for the writer lock (a turn of a writer that shares the
     * store) and takes it; false if another process still holds it then. Polls: a blocking lock
     * could not be given up at the deadline.
     */
    public boolean takeWriterTurn(long timeoutNanos) {
        return takeWriterTurn(timeoutNanos, () -> false);
    }

    /**
     * {@link #takeWriterTurn(long)}, which also gives up (false) as soon as {@code giveUp} says so,
     * looked at between two polls (at most a millisecond apart).
     */
    public boolean takeWriterTurn(long timeoutNanos, java.util.function.BooleanSupplier giveUp) {
        long deadline = System.nanoTime() + timeoutNanos;
        long pause = 20_000L;
        while (true) {
            synchronized (this) {
                if (writersLock == null || writerLock != null) {
                    throw new IllegalStateException("no writer turn to take on " + path);
                }
                if (tryWriterLock()) {
                    return true;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || giveUp.getAsBoolean()) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                return false;
            }
            pause = Math.min(pause * 2, MAX_TURN_POLL_NANOS);
        }
    }

    /** Ends the turn taken by {@link #takeWriterTurn}. */
    public synchronized void endWriterTurn() {
        releaseWriterLock();
    }

    /** Says that this process, a sole writer, holds the lock on the store file itself (or no longer does). */
    void holdsFileLock(boolean holds) {
        header.putLongVolatile(FILE_LOCK_HOLDER, holds ? ProcessHandle.current().pid() : 0);
    }

    /** The pid of the sole writer that said it holds the lock on the store file itself, 0 if none did. */
    long fileLockHolder() {
        return header.getLongVolatile(FILE_LOCK_HOLDER);
    }

    /** The pid of the process holding the writer lock, if it said (0: none or unknown). */
    public long writerPid() {
        return header.getLongVolatile(WRITER_PID);
    }

    /** Tries to lock the byte at {@code position}; null if another process holds it. */
    private FileLock tryLock(long position, boolean shared) {
        try {
            return channel.tryLock(position, 1, shared);
        } catch (IOException e) {
            throw new StorageException("cannot lock " + path + ": " + FilePageStore.reason(e), e);
        }
    }

    private boolean tryWriterLock() {
        FileLock lock = tryLock(WRITER_LOCK, false);
        if (lock == null) {
            return false;
        }
        writerLock = lock;
        header.putLongVolatile(WRITER_PID, ProcessHandle.current().pid());
        return true;
    }

    private StoreLockedException lockedByAnother(String store) {
        long pid = writerPid();
        return new StoreLockedException("store " + store + " is open for writing in another process"
                + (pid > 0 ? " (pid " + pid + ")" : "") + " (it holds the lock on " + path + ")");
    }

    /** Lets go of the writer lock and leaves the writers ({@link #lockWriter} or {@link #joinSharedWriters}). */
    public synchronized void unlockWriter() {
        releaseWriterLock();
        leaveWriters();
    }

    private void releaseWriterLock() {
        if (writerLock != null) {
            header.putLongVolatile(WRITER_PID, 0);
            try {
                writerLock.release();
            } catch (IOException ignored) {
                // Closing the channel releases it too.
            }
            writerLock = null;
        }
    }

    private void leaveWriters() {
        if (writersLock != null) {
            try {
                writersLock.release();
            } catch (IOException ignored) {
                // Closing the channel releases it too.
            }
            writersLock = null;
        }
    }

    /** The header words ({@link #HIGH_WATER}, {@link #PUBLISHED}, {@link #WRITER_PID}). */
    public AtomicBuffer header() {
        return header;
    }

    /** The reader slots, {@link #slots()} of {@link #SLOT_BYTES} each. */
    public AtomicBuffer table() {
        return table;
    }

    /**
     * The freed-page log's entries, {@link #FREED_ENTRY_BYTES} each (see {@link #FREED_SEQUENCE}),
     * for writers that take turns. The first of them to ask grows the file by it (under the
     * initialization lock, so that two processes cannot both grow it); readers and a sole writer
     * never ask, and their lock file stays the header and the slots.
     */
    public synchronized AtomicBuffer freedLog() {
        if (freedLog == null) {
            long at = HEADER_BYTES + (long) slots * SLOT_BYTES;
            long bytes = (long) FREED_ENTRIES * FREED_ENTRY_BYTES;
            try (FileLock init = channel.lock(INIT_LOCK, 1, false)) {
                if (header.getIntVolatile(FREED_CAPACITY_OFFSET) == 0) {
                    // Zeros written, not a hole: a store into a hole on a full disk would be a SIGBUS.
                    FilePageStore.writeZeros(channel, at, at + bytes);
                    header.putIntVolatile(FREED_CAPACITY_OFFSET, FREED_ENTRIES);
                }
                freedLog = new UnsafeBuffer(channel.map(FileChannel.MapMode.READ_WRITE, at, bytes));
            } catch (IOException e) {
                throw new StorageException("cannot grow lock file " + path + " by its freed-page log: "
                        + FilePageStore.reason(e), e);
            }
        }
        return freedLog;
    }

    public int slots() {
        return slots;
    }

    public Path path() {
        return path;
    }

    /** Drops this reference; the last one closes the file (and so drops its locks). */
    @Override
    public void close() {
        synchronized (LockFile.class) {
            if (references == 0) {
                return;
            }
            if (--references > 0) {
                return;
            }
            OPEN.values().remove(this);
            unlockWriter();
            try {
                presence.release();
                if (createdFileKey != null) {
                    removeIfUnused();
                }
            } catch (IOException ignored) {
                // Closing the channel releases the locks too; a lock file left behind does no harm.
            }
            // The mapping stays until it is unreachable: a reader still looking would crash otherwise.
            closeQuietly(channel);
        }
    }

    /**
     * Removes the file this JVM created if no other process uses it. Under the initialization lock,
     * so that an open waiting for it finds the file gone and makes a new one (see initialize),
     * instead of joining a reader table that nobody else can reach.
     */
    private void removeIfUnused() throws IOException {
        try (FileLock init = channel.lock(INIT_LOCK, 1, false);
                FileLock alone = channel.tryLock(PRESENCE_LOCK, 1, false)) {
            if (alone != null && createdFileKey.equals(fileKey(path))) {
                java.nio.file.Files.delete(path);
            }
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
