// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import io.mvbt.StorageException;

/**
 * A redo log's segments in memory that behave like files under a power cut, for tests. A segment's
 * {@link Segment#sync()} makes what it holds durable; {@link #cut} gives what a disk could hold
 * after the power failed: each segment's synced bytes, and of what was written since, each 512-byte
 * sector kept or lost at random, up to the synced length or the written one. Creating a
 * segment is durable at once (the directory is synced); a deletion may be undone by a cut until
 * {@link #syncDeletes()}. Optionally the power fails during a given segment sync: the cut is taken
 * as it starts, together with the page store's ({@code onCut}), and the sync throws.
 */
final class PowerCutRedoStorage implements RedoStorage {
    private static final int SECTOR = 512;

    private final TreeMap<Long, File> files = new TreeMap<>();
    /** Deleted, but not durably: a cut may bring them back. */
    private final TreeMap<Long, File> deleted = new TreeMap<>();
    private final TreeMap<Long, File> setAside = new TreeMap<>();
    private long syncs;
    private long cutAtSync = -1;
    private Random cutRandom;
    private Runnable onCut;
    private PowerCutRedoStorage cutImage;

    private static final class File {
        byte[] bytes = new byte[0];
        int length;
        int syncedLength;
        byte[] synced = new byte[0];
    }

    /** Arranges for the power to fail during segment sync number {@code sync} (counting from 1). */
    synchronized void cutDuringSync(long sync, Random random, Runnable cutTheDisk) {
        this.cutAtSync = sync;
        this.cutRandom = random;
        this.onCut = cutTheDisk;
    }

    synchronized long syncs() {
        return syncs;
    }

    /** The log as the planned cut left it, or null if it has not happened. */
    synchronized PowerCutRedoStorage cutImage() {
        return cutImage;
    }

    /** What a disk could hold if the power failed now (a log to open after the reboot). */
    synchronized PowerCutRedoStorage cut(Random random) {
        PowerCutRedoStorage after = new PowerCutRedoStorage();
        TreeMap<Long, File> all = new TreeMap<>(files);
        for (Map.Entry<Long, File> e : deleted.entrySet()) {
            if (random.nextBoolean()) {
                all.putIfAbsent(e.getKey(), e.getValue());
            }
        }
        for (Map.Entry<Long, File> e : all.entrySet()) {
            File f = e.getValue();
            // The size as synced or as written; each sector written since the sync kept or lost.
            int length = random.nextBoolean() ? f.length : f.syncedLength;
            byte[] image = Arrays.copyOf(f.synced, length);
            int written = Math.min(length, f.length);
            for (int s = 0; s < written; s += SECTOR) {
                int end = Math.min(written, s + SECTOR);
                if (!Arrays.equals(f.bytes, s, end, image, s, end) && random.nextInt(3) > 0) {
                    System.arraycopy(f.bytes, s, image, s, end - s);
                }
            }
            File kept = new File();
            kept.bytes = image;
            kept.length = image.length;
            kept.synced = image.clone();
            kept.syncedLength = image.length;
            after.files.put(e.getKey(), kept);
        }
        return after;
    }

    private void checkPower() {
        if (cutImage != null) {
            throw new StorageException("the power is off");
        }
    }

    @Override
    public synchronized long[] segments() {
        return files.keySet().stream().mapToLong(Long::longValue).toArray();
    }

    @Override
    public synchronized Segment create(long firstRevision) {
        checkPower();
        if (files.containsKey(firstRevision)) {
            throw new StorageException("segment " + firstRevision + " exists");
        }
        File f = new File();
        files.put(firstRevision, f);
        deleted.remove(firstRevision);
        return new MemorySegment(f);
    }

    @Override
    public synchronized Segment open(long firstRevision) {
        File f = files.get(firstRevision);
        if (f == null) {
            throw new StorageException("no segment " + firstRevision);
        }
        return new MemorySegment(f);
    }

    @Override
    public synchronized void delete(long firstRevision) {
        checkPower();
        File f = files.remove(firstRevision);
        if (f != null) {
            deleted.put(firstRevision, f);
        }
    }

    @Override
    public synchronized void setAside(long firstRevision) {
        checkPower();
        File f = files.remove(firstRevision);
        if (f != null) {
            setAside.put(firstRevision, f);
        }
    }

    /** Segments set aside ({@link #setAside}), by first revision. */
    synchronized java.util.Set<Long> setAside() {
        return new java.util.TreeSet<>(setAside.keySet());
    }

    @Override
    public synchronized void syncDeletes() {
        checkPower();
        deleted.clear();
    }

    @Override
    public String describe(long firstRevision) {
        return "segment " + firstRevision;
    }

    private final class MemorySegment implements Segment {
        private final File file;

        MemorySegment(File file) {
            this.file = file;
        }

        @Override
        public long size() {
            synchronized (PowerCutRedoStorage.this) {
                return file.length;
            }
        }

        @Override
        public void write(ByteBuffer source, long position) {
            synchronized (PowerCutRedoStorage.this) {
                checkPower();
                int n = source.remaining();
                int end = (int) position + n;
                if (end > file.bytes.length) {
                    file.bytes = Arrays.copyOf(file.bytes, Math.max(end, file.bytes.length * 2));
                }
                source.get(file.bytes, (int) position, n);
                file.length = Math.max(file.length, end);
            }
        }

        @Override
        public int read(ByteBuffer target, long position) {
            synchronized (PowerCutRedoStorage.this) {
                int n = (int) Math.max(0, Math.min(target.remaining(), file.length - position));
                target.put(file.bytes, (int) position, n);
                return n;
            }
        }

        @Override
        public void truncate(long size) {
            synchronized (PowerCutRedoStorage.this) {
                checkPower();
                file.length = (int) Math.min(file.length, size);
            }
        }

        @Override
        public void sync() {
            synchronized (PowerCutRedoStorage.this) {
                checkPower();
                if (syncs + 1 == cutAtSync) {
                    onCut.run();
                    cutImage = cut(cutRandom);
                    throw new StorageException("power cut during redo log sync " + cutAtSync);
                }
                syncs++;
                file.synced = Arrays.copyOf(file.bytes, file.length);
                file.syncedLength = file.length;
            }
        }

        @Override
        public void close() {
        }
    }
}
