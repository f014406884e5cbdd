package io.mvbt.pagestore;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;

/**
 * The writers' lock on the store file itself (a sole writer's exclusive, shared for writers that
 * take turns), on a byte far past any page. The {@link LockFile}'s locks go with its name; this one
 * goes with the file, so a writer that reached the file by another name (a hard link) or beside a
 * lock file deleted and made again is refused too.
 *
 * A reader that finds the lock held while its lock file names no writer is refused too
 * ({@link #refuseUnseenWriter}). Writers that take turns hold the lock shared, so a second group of
 * them beside another lock file is not told apart.
 *
 * <p>POSIX drops every lock a process holds on a file when it closes any descriptor of that file.
 * So a second writer in this JVM is refused before it opens a channel, and a read-only store of
 * the same file that closes its channel here takes the writer's lock again ({@link #channelClosed}),
 * leaving another process only that moment to slip in. Anything else in the writer's JVM that opens
 * and closes the store file (a copy of it, a checksum) drops the lock for good.
 */
final class StoreFileLock {
    /** The byte locked: past any page a store could have. */
    static final long WRITERS_BYTE = Long.MAX_VALUE - 1;
    /** Looks at the lock, for a writer and for a reader, before giving up: another's look holds it a moment. */
    private static final int ATTEMPTS = 3;
    private static final long PAUSE_NANOS = 10_000_000L;
    /** Store files written by this JVM, by file identity (device and inode). */
    private static final Map<Object, StoreFileLock> HELD = new HashMap<>();

    private final Object key;
    private final Path lockPath;
    private final FileChannel channel;
    private final boolean shared;
    private FileLock lock;

    private StoreFileLock(Object key, Path lockPath, FileChannel channel, boolean shared, FileLock lock) {
        this.key = key;
        this.lockPath = lockPath;
        this.channel = channel;
        this.shared = shared;
        this.lock = lock;
    }

    /**
     * Opens the store file for writing (creating it if missing) and takes its lock; on refusal
     * throws {@link StoreLockedException} with nothing left open.
     */
    static synchronized StoreFileLock open(Path path, boolean shared, Path lockPath) throws IOException {
        Object before = keyOf(path);
        if (before != null && HELD.containsKey(before)) {
            throw underAnotherName(path, lockPath);
        }
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try {
            FileLock lock = null;
            // A reader's look at the lock (openReadOnly) holds it shared for a moment: try again.
            for (int attempt = 0; lock == null && attempt < ATTEMPTS; attempt++) {
                if (attempt > 0) {
                    pause();
                }
                try {
                    lock = channel.tryLock(WRITERS_BYTE, 1, shared);
                } catch (OverlappingFileLockException e) {
                    break;
                }
            }
            if (lock == null) {
                throw underAnotherName(path, lockPath);
            }
            StoreFileLock held = new StoreFileLock(keyOf(path), lockPath, channel, shared, lock);
            if (held.key != null) {
                HELD.put(held.key, held);
            }
            return held;
        } catch (IOException | RuntimeException | Error e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Refuses a read-only open of a file that a sole writer writes beside another lock file than
     * {@code lockFile} (it reached the file by another name): that writer would never see this
     * reader's snapshots and would reuse their pages. Writers that take turns hold the lock shared
     * and are not told apart.
     */
    static synchronized void refuseUnseenWriter(Path path, FileChannel channel, Object key, LockFile lockFile)
            throws IOException {
        StoreFileLock here = key == null ? null : HELD.get(key);
        if (here != null) {
            if (!here.lockPath.equals(lockFile.path())) {
                throw unseenBy(path, lockFile);
            }
            return;
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (attempt > 0) {
                pause();
            }
            try (FileLock probe = channel.tryLock(WRITERS_BYTE, 1, true)) {
                // A sole writer beside this lock file names itself there before it locks the file,
                // and holds the lock until after it stops naming itself.
                if (probe != null || lockFile.writerPid() != 0) {
                    return;
                }
            }
        }
        throw unseenBy(path, lockFile);
    }

    private static void pause() {
        java.util.concurrent.locks.LockSupport.parkNanos(PAUSE_NANOS);
    }

    private static StoreLockedException underAnotherName(Path path, Path lockPath) {
        return new StoreLockedException("store " + path + " is open for writing under another name (a hard link) or "
                + "beside another lock file than " + lockPath + "; open it by one name");
    }

    private static StoreLockedException unseenBy(Path path, LockFile lockFile) {
        return new StoreLockedException("store " + path + " is open for writing under another name (a hard link) or "
                + "beside another lock file than " + lockFile.path() + ": its writer would not see this reader's "
                + "snapshots; open it by the writer's name");
    }

    /** The identity of the file at {@code path} (device and inode), or null if it is missing or not known. */
    static Object keyOf(Path path) throws IOException {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    FileChannel channel() {
        return channel;
    }

    /** Closes the channel, and with it the lock. */
    void close() throws IOException {
        synchronized (StoreFileLock.class) {
            if (key != null) {
                HELD.remove(key, this);
            }
        }
        channel.close();
    }

    /**
     * Called after a channel to the file of {@code key} that is not a writer's was closed: POSIX
     * dropped the writer's lock with it, which is taken again here.
     */
    static synchronized void channelClosed(Object key) {
        StoreFileLock held = key == null ? null : HELD.get(key);
        if (held == null) {
            return;
        }
        try {
            if (held.lock != null) {
                held.lock.release();
            }
            held.lock = held.channel.tryLock(WRITERS_BYTE, 1, held.shared);
            if (held.lock == null) {
                System.getLogger("io.mvbt.pagestore").log(System.Logger.Level.WARNING, "the writer of store file "
                        + held.key + " lost its lock on the file to another process when a descriptor of the file "
                        + "closed in this JVM: a writer that reached it by another name may be writing it too");
            }
        } catch (IOException | OverlappingFileLockException e) {
            // The writer's channel is closing: its lock goes with it.
        }
    }
}
