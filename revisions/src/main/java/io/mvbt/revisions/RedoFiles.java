// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import io.mvbt.StorageException;
import io.mvbt.pagestore.local.FilePageStore;

/**
 * A redo log's segments as files beside the store (the file its name leads to, if a symbolic link):
 * {@code STORE.redo-<first revision, 16 hex digits>}.
 * Only the store's writer, holding the file's writer lock, touches them.
 */
final class RedoFiles implements RedoStorage {
    private static final String INFIX = ".redo-";
    private static final String LOCK_SUFFIX = "-lock";

    private final Path directory;
    private final String prefix;

    RedoFiles(Path store) {
        // Beside the file a symbolic link leads to, as the lock file is: every name of a store finds its log.
        Path lock = FilePageStore.lockPathOf(store).toAbsolutePath();
        String lockName = lock.getFileName().toString();
        this.directory = lock.getParent();
        this.prefix = lockName.substring(0, lockName.length() - LOCK_SUFFIX.length()) + INFIX;
    }

    /** Whether {@code store} has redo segments beside it. */
    static boolean present(Path store) {
        return new RedoFiles(store).segments().length > 0;
    }

    @Override
    public long[] segments() {
        long[] found = new long[8];
        int n = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, glob(prefix) + "*")) {
            for (Path p : files) {
                String suffix = p.getFileName().toString().substring(prefix.length());
                if (suffix.length() != 16) {
                    continue;
                }
                try {
                    long first = Long.parseUnsignedLong(suffix, 16);
                    if (n == found.length) {
                        found = Arrays.copyOf(found, n * 2);
                    }
                    found[n++] = first;
                } catch (NumberFormatException e) {
                    // Not a segment of ours.
                }
            }
        } catch (IOException e) {
            throw new StorageException("cannot list redo segments in " + directory + ": " + e, e);
        }
        long[] result = Arrays.copyOf(found, n);
        Arrays.sort(result);
        return result;
    }

    /** A glob matching {@code literal} exactly. */
    private static String glob(String literal) {
        return literal.replaceAll("([\\\\*?\\[\\]{}])", "\\\\$1");
    }

    private Path path(long firstRevision) {
        return directory.resolve(prefix + String.format("%016x", firstRevision));
    }

    @Override
    public Segment create(long firstRevision) {
        Path p = path(firstRevision);
        try {
            FileChannel channel = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            syncDirectory();
            return new FileSegment(p, channel);
        } catch (IOException e) {
            throw new StorageException("cannot create redo segment " + p + ": " + e, e);
        }
    }

    @Override
    public Segment open(long firstRevision) {
        Path p = path(firstRevision);
        try {
            return new FileSegment(p, FileChannel.open(p, StandardOpenOption.READ));
        } catch (IOException e) {
            throw new StorageException("cannot open redo segment " + p + ": " + e, e);
        }
    }

    @Override
    public void delete(long firstRevision) {
        try {
            Files.deleteIfExists(path(firstRevision));
        } catch (IOException e) {
            throw new StorageException("cannot delete redo segment " + path(firstRevision) + ": " + e, e);
        }
    }

    @Override
    public void setAside(long firstRevision) {
        Path from = path(firstRevision);
        Path to = from.resolveSibling(from.getFileName() + ".damaged");
        for (int i = 1; Files.exists(to); i++) {
            to = from.resolveSibling(from.getFileName() + ".damaged-" + i);
        }
        try {
            Files.move(from, to);
            syncDirectory();
        } catch (IOException e) {
            throw new StorageException("cannot set redo segment " + from + " aside: " + e, e);
        }
    }

    @Override
    public void syncDeletes() {
        try {
            syncDirectory();
        } catch (IOException e) {
            throw new StorageException("fsync of " + directory + " failed: " + e, e);
        }
    }

    private void syncDirectory() throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    @Override
    public String describe(long firstRevision) {
        return path(firstRevision).toString();
    }

    private record FileSegment(Path path, FileChannel channel) implements Segment {
        @Override
        public long size() {
            try {
                return channel.size();
            } catch (IOException e) {
                throw new StorageException("cannot read the size of " + path + ": " + e, e);
            }
        }

        @Override
        public void write(ByteBuffer source, long position) {
            try {
                long at = position;
                while (source.hasRemaining()) {
                    at += channel.write(source, at);
                }
            } catch (IOException e) {
                throw new StorageException("write to redo segment " + path + " failed: " + e, e);
            }
        }

        @Override
        public int read(ByteBuffer target, long position) {
            try {
                int total = 0;
                while (target.hasRemaining()) {
                    int n = channel.read(target, position + total);
                    if (n < 0) {
                        break;
                    }
                    total += n;
                }
                return total;
            } catch (IOException e) {
                throw new StorageException("read of redo segment " + path + " failed: " + e, e);
            }
        }

        @Override
        public void truncate(long size) {
            try {
                channel.truncate(size);
            } catch (IOException e) {
                throw new StorageException("truncating redo segment " + path + " failed: " + e, e);
            }
        }

        @Override
        public void sync() {
            try {
                channel.force(false);
            } catch (IOException e) {
                throw new StorageException("fdatasync of redo segment " + path + " failed: " + e, e);
            }
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // Nothing is lost: every write was synced or is left to the next open's replay.
            }
        }
    }
}
