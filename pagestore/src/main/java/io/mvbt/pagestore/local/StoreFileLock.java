// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

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

import io.mvbt.WriterByAnotherNameException;

/**
 * The writers' lock on the store file itself (a sole writer's exclusive, shared for writers that
 * take turns), on a byte far past any page. The {@link LockFile}'s locks go with its name; this one
 * goes with the file, so a writer that reached the file by another name (a hard link) or beside a
 * lock file deleted and made again is refused too.
 *
 * <p>A sole writer names itself in its lock file while it holds the lock ({@link
 * LockFile#FILE_LOCK_HOLDER}). A reader that finds the lock held exclusively while its own lock
 * file names no live holder is refused ({@link #refuseUnseenWriter}): that writer would not see its
 * snapshots. Writers that take turns hold the lock shared, so a second group of them beside another
 * lock file is not told apart.
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
    /** Looks at a lock held exclusively this often before giving up: its holder may be going. */
    private static final int ATTEMPTS = 3;
    private static final long PAUSE_NANOS = 10_000_000L;
    /**
     * A sole writer waits this long for a lock held shared (readers looking at it hold it a moment),
     * and a reader this long for a holder to name itself or let go.
     */
    private static final long SHARED_WAIT_NANOS = 1_000_000_000L;
    /** Store files written by this JVM, by file identity (device and inode). */
    private static final Map<Object, StoreFileLock> HELD = new HashMap<>();

    private final Object key;
    private final LockFile lockFile;
    private final FileChannel channel;
    private final boolean shared;
    private FileLock lock;

    private StoreFileLock(Object key, LockFile lockFile, FileChannel channel, boolean shared, FileLock lock) {
        this.key = key;
        this.lockFile = lockFile;
        this.channel = channel;
        this.shared = shared;
        this.lock = lock;
    }

    /**
     * Opens the store file for writing (creating it if missing) and takes its lock; on refusal
     * throws {@link WriterByAnotherNameException} with nothing left open.
     */
    static synchronized StoreFileLock open(Path path, boolean shared, LockFile lockFile) throws IOException {
        Object before = keyOf(path);
        if (before != null && HELD.containsKey(before)) {
            throw underAnotherName(path, lockFile);
        }
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        boolean named = false;
        try {
            FileLock lock = take(path, channel, shared, lockFile);
            if (!shared) {
                lockFile.holdsFileLock(true);
                named = true;
            }
            StoreFileLock held = new StoreFileLock(keyOf(path), lockFile, channel, shared, lock);
            if (held.key != null) {
                HELD.put(held.key, held);
            }
            return held;
        } catch (IOException | RuntimeException | Error e) {
            if (named) {
                lockFile.holdsFileLock(false);
            }
            channel.close();
            throw e;
        }
    }

    private static FileLock take(Path path, FileChannel channel, boolean shared, LockFile lockFile)
            throws IOException {
        long sharedSince = 0;
        for (int exclusiveSeen = 0;; ) {
            FileLock lock;
            try {
                lock = channel.tryLock(WRITERS_BYTE, 1, shared);
            } catch (OverlappingFileLockException e) {
                throw underAnotherName(path, lockFile);
            }
            if (lock != null) {
                return lock;
            }
            if (!shared && heldSharedOnly(channel)) {
                // Readers looking (or writers that take turns beside another lock file, for ever).
                long now = System.nanoTime();
                sharedSince = sharedSince == 0 ? now : sharedSince;
                if (now - sharedSince > SHARED_WAIT_NANOS) {
                    throw new WriterByAnotherNameException("store " + path + " has been held shared for a second: by "
                            + "writers that take turns beside another lock file than " + lockFile.path()
                            + " (a hard link), or by readers opening it without pause; open it by one name");
                }
            } else if (++exclusiveSeen == ATTEMPTS) {
                throw underAnotherName(path, lockFile);
            }
            pause();
        }
    }

    /** Whether others hold the byte, shared only (a shared look at it succeeds). */
    private static boolean heldSharedOnly(FileChannel channel) throws IOException {
        try (FileLock probe = channel.tryLock(WRITERS_BYTE, 1, true)) {
            return probe != null;
        }
    }

    /**
     * Refuses a read-only open of a file that a sole writer writes beside another lock file than
     * {@code lockFile} (it reached the file by another name): that writer would never see this
     * reader's snapshots and would reuse their pages.
     */
    static synchronized void refuseUnseenWriter(Path path, FileChannel channel, Object key, LockFile lockFile)
            throws IOException {
        StoreFileLock here = key == null ? null : HELD.get(key);
        if (here != null) {
            if (here.lockFile != lockFile) {
                throw unseenBy(path, lockFile);
            }
            return;
        }
        // Refusing is the rare case: a writer taking or letting go of the lock gets a second.
        long deadline = System.nanoTime() + SHARED_WAIT_NANOS;
        for (int attempt = 0; attempt == 0 || System.nanoTime() - deadline < 0; attempt++) {
            if (attempt > 0) {
                pause();
            }
            try (FileLock probe = channel.tryLock(WRITERS_BYTE, 1, true)) {
                // A sole writer beside this lock file names itself there right after it takes the
                // lock, and stops right before it lets go.
                if (probe != null || alive(lockFile.fileLockHolder())) {
                    return;
                }
            } catch (OverlappingFileLockException e) {
                // A writer in this JVM of a file whose identity is not known: the same process.
                return;
            }
        }
        throw unseenBy(path, lockFile);
    }

    /** Whether {@code pid} names a live process (a writer killed leaves its pid behind). */
    private static boolean alive(long pid) {
        return pid != 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static void pause() {
        java.util.concurrent.locks.LockSupport.parkNanos(PAUSE_NANOS);
    }

    private static WriterByAnotherNameException underAnotherName(Path path, LockFile lockFile) {
        return new WriterByAnotherNameException("store " + path + " is open for writing under another name (a hard "
                + "link) or beside another lock file than " + lockFile.path() + "; open it by one name");
    }

    private static WriterByAnotherNameException unseenBy(Path path, LockFile lockFile) {
        return new WriterByAnotherNameException("store " + path + " is open for writing under another name (a hard "
                + "link) or beside another lock file than " + lockFile.path() + ": its writer would not see this "
                + "reader's snapshots; open it by the writer's name");
    }

    /** A look at a store file through a channel of its own. */
    interface Look {
        void at(FileChannel channel) throws IOException;
    }

    /**
     * Looks at the file at {@code path} through a read channel opened and closed for the look,
     * unless this JVM writes it: closing any descriptor of a file drops every POSIX lock the
     * process holds on it, the writer's too. Under this class's monitor, so that no writer of this
     * JVM takes the file meanwhile. A missing file is not looked at.
     */
    static synchronized void look(Path path, Look look) throws IOException {
        Object key = keyOf(path);
        if (key == null || HELD.containsKey(key)) {
            return;
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            look.at(channel);
        }
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
            if (!shared) {
                lockFile.holdsFileLock(false);
            }
            // Inside the monitor: a reader's look meanwhile would meet this JVM's lock table.
            channel.close();
        }
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
            long deadline = System.nanoTime() + SHARED_WAIT_NANOS;
            held.lock = held.channel.tryLock(WRITERS_BYTE, 1, held.shared);
            // A reader looking at the byte holds it shared for a moment.
            while (held.lock == null && !held.shared && heldSharedOnly(held.channel)
                    && System.nanoTime() - deadline < 0) {
                pause();
                held.lock = held.channel.tryLock(WRITERS_BYTE, 1, held.shared);
            }
            if (held.lock == null) {
                if (!held.shared) {
                    held.lockFile.holdsFileLock(false);
                }
                System.getLogger("io.mvbt.pagestore").log(System.Logger.Level.WARNING, "the writer of store file "
                        + held.key + " lost its lock on the file to another process when a descriptor of the file "
                        + "closed in this JVM: a writer that reached it by another name may be writing it too");
            }
        } catch (IOException | OverlappingFileLockException e) {
            // The writer's channel is closing: its lock goes with it.
        }
    }
}
