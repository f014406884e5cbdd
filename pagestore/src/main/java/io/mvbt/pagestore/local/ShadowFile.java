// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.agrona.BufferUtil;
import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.StorageException;

/**
 * Pages a file store's writer wrote since its last checkpoint, kept in a file in memory (tmpfs,
 * {@code /dev/shm}) until the checkpoint writes them into the store file with positional writes.
 * The store file's mapping is then never stored into, so writeback never write-protects a page the
 * writer is about to store into (a write fault each) nor shoots down the readers' TLB entries; and
 * as the memory file is a file, a killed writer loses nothing: the next open reads through it and
 * writes its pages into the store file. A power cut or a reboot loses it, as it loses the page cache.
 *
 * <p>Layout: a header page; slots of one page each; an index of one int per page number of the
 * store (the slot + 1 holding it, 0 if the store file holds it), which readers of this and other
 * processes consult before the store file. Memory is taken by writing zeros, never by storing into
 * a hole, so a full tmpfs fails a write with an exception instead of killing the JVM with SIGBUS.
 */
public final class ShadowFile implements AutoCloseable {
    private static final long MAGIC = 0x6d7662742d736864L; // "mvbt-shd"
    private static final int HEADER = 4096;
    private static final int MAGIC_AT = 0;
    private static final int PAGE_SIZE_AT = 8;
    private static final int STORE_ID_AT = 16;
    /** Page numbers whose index entry is backed by memory, so that readers may look it up. */
    private static final int INDEXED_AT = 24;
    private static final int PATH_LENGTH_AT = 32;
    private static final int PATH_AT = 36;
    /** Slots are taken in steps of this many bytes. */
    private static final int SLOT_STEP_BYTES = 4 << 20;
    /** Index entries are taken in steps of this many bytes (page numbers × 4). */
    private static final int INDEX_STEP_BYTES = 64 << 10;
    /** Largest index: page numbers up to 2^28 (1 TiB of 4 KiB pages) can be shadowed. */
    private static final long INDEX_BYTES = 1L << 30;
    /** Largest room for slots (one mapping). */
    public static final long MAX_SLOT_BYTES = 1L << 30;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(SLOT_STEP_BYTES);

    private final Path path;
    private final FileChannel channel;
    private final int pageSize;
    private final int pageShift;
    private final int capacity;
    private final MappedByteBuffer header;
    private final MappedByteBuffer slots;
    private final MappedByteBuffer index;
    private final long headerAddress;
    private final long slotsAddress;
    private final long indexAddress;
    private final long indexOffset;
    /** Writer only: slots backed by memory, and index entries backed by memory. */
    private int slotsTaken;
    private long indexed;

    private ShadowFile(Path path, FileChannel channel, int pageSize, int capacity, boolean write) throws IOException {
        this.path = path;
        this.channel = channel;
        this.pageSize = pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.capacity = capacity;
        FileChannel.MapMode mode = write ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY;
        this.indexOffset = HEADER + (long) capacity * pageSize;
        this.header = channel.map(mode, 0, HEADER);
        this.slots = channel.map(mode, HEADER, (long) capacity * pageSize);
        this.index = channel.map(mode, indexOffset, INDEX_BYTES);
        this.headerAddress = BufferUtil.address(header);
        this.slotsAddress = BufferUtil.address(slots);
        this.indexAddress = BufferUtil.address(index);
    }

    /** The file that holds the shadow named {@code id} in {@code directory}. */
    public static Path pathOf(Path directory, long idHigh, long idLow) {
        return directory.resolve(String.format("mvbt-%016x%016x.shadow", idHigh, idLow));
    }

    /**
     * Creates a shadow of the store file at {@code storePath} with room for {@code capacity}
     * pages, taken as they are needed; throws {@link StorageException} if it cannot.
     */
    public static ShadowFile create(Path file, Path storePath, long storeId, int pageSize, int capacity) {
        if ((long) capacity * pageSize > MAX_SLOT_BYTES || capacity <= 0) {
            throw new IllegalArgumentException("shadow capacity out of range: " + capacity + " pages");
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            ByteBuffer h = ByteBuffer.allocate(HEADER).order(java.nio.ByteOrder.nativeOrder());
            byte[] name = storePath.toString().getBytes(StandardCharsets.UTF_8);
            if (name.length > HEADER - PATH_AT) {
                throw new StorageException("store path too long for a shadow file: " + storePath);
            }
            h.putLong(MAGIC_AT, MAGIC).putInt(PAGE_SIZE_AT, pageSize).putLong(STORE_ID_AT, storeId)
                    .putLong(INDEXED_AT, 0).putInt(PATH_LENGTH_AT, name.length).position(PATH_AT);
            h.put(name).clear();
            while (h.hasRemaining()) {
                channel.write(h, h.position());
            }
            return new ShadowFile(file, channel, pageSize, capacity, true);
        } catch (IOException e) {
            closeQuietly(channel);
            deleteQuietly(file);
            throw new StorageException("cannot create the shadow file " + file + ": " + FilePageStore.reason(e), e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            deleteQuietly(file);
            throw e;
        }
    }

    /**
     * Opens an existing shadow to read (a follower) or, with {@code write}, for the writer that
     * recovers a killed writer's pages from it (and seals them there); returns null if there is
     * none, or it belongs to another store file or store.
     */
    public static ShadowFile openExisting(Path file, Path storePath, long storeId, boolean write) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        FileChannel channel = null;
        try {
            channel = write ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : FileChannel.open(file, StandardOpenOption.READ);
            Header h = Header.read(channel);
            int pageSize = h == null ? 0 : h.pageSize;
            if (h == null || h.storeId != storeId || !h.storePath.equals(storePath.toString()) || pageSize <= 0
                    || Integer.bitCount(pageSize) != 1) {
                channel.close();
                return null;
            }
            // The writer mapped the index whole, which gave the file its size.
            long capacityBytes = channel.size() - HEADER - INDEX_BYTES;
            if (capacityBytes < 0 || capacityBytes % pageSize != 0 || capacityBytes > MAX_SLOT_BYTES) {
                channel.close();
                return null;
            }
            return new ShadowFile(file, channel, pageSize, (int) (capacityBytes / pageSize), write);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StorageException("cannot read the shadow file " + file + ": " + FilePageStore.reason(e), e);
        }
    }

    /**
     * Deletes the shadows in {@code directory} whose store file is gone (deleted before its writer
     * closed, or after it was killed): no open can ever need them. Shadows it cannot read stay.
     */
    public static void deleteOrphans(Path directory) {
        try (java.util.stream.Stream<Path> files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.startsWith("mvbt-") && name.endsWith(".shadow")) {
                    Path store = storePathOf(file);
                    if (store != null && !Files.exists(store)) {
                        deleteQuietly(file);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // Leftovers cost memory, not correctness.
        }
    }

    /** The store file a shadow file names, or null if it is not a shadow. */
    private static Path storePathOf(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            Header h = Header.read(channel);
            return h == null ? null : Path.of(h.storePath);
        }
    }

    /** What a shadow's header says. */
    private record Header(int pageSize, long storeId, String storePath) {
        /** The header of the file open on {@code channel}, or null if it is no shadow's. */
        static Header read(FileChannel channel) throws IOException {
            ByteBuffer h = ByteBuffer.allocate(HEADER).order(java.nio.ByteOrder.nativeOrder());
            while (h.hasRemaining() && channel.read(h, h.position()) > 0) {
                // Reads the header whole.
            }
            int length = h.getInt(PATH_LENGTH_AT);
            if (h.position() < HEADER || h.getLong(MAGIC_AT) != MAGIC || length <= 0 || length > HEADER - PATH_AT) {
                return null;
            }
            return new Header(h.getInt(PAGE_SIZE_AT), h.getLong(STORE_ID_AT),
                    new String(h.array(), PATH_AT, length, StandardCharsets.UTF_8));
        }
    }

    public int capacity() {
        return capacity;
    }

    /**
     * Address of the copy of {@code pageNo} held here, or 0 if the store file holds it. Plain
     * loads: a reader reached the page through a revision published (volatile) after its entry was
     * written, and the hardware keeps loads in order for readers of other processes.
     */
    public long address(long pageNo) {
        int slot = slotOf(pageNo);
        return slot < 0 ? 0 : slotAddress(slot);
    }

    /** The copy of {@code pageNo} held here as a buffer, or null if the store file holds it. */
    public ByteBuffer buffer(long pageNo) {
        int slot = slotOf(pageNo);
        return slot < 0 ? null : slotBuffer(slot);
    }

    /** The slot holding {@code pageNo}, or -1 if the store file holds it (plain loads, see {@link #address}). */
    public int slotOf(long pageNo) {
        if (pageNo >= UNSAFE.getLong(null, headerAddress + INDEXED_AT)) {
            return -1;
        }
        return UNSAFE.getInt(null, indexAddress + (pageNo << 2)) - 1;
    }

    /** Address of slot {@code slot}. */
    public long slotAddress(int slot) {
        return slotsAddress + ((long) slot << pageShift);
    }

    /** Slots that can be used now without taking more memory. */
    public int slotsTaken() {
        return slotsTaken;
    }

    /**
     * Takes memory for more slots (a step at a time, up to the capacity); returns false if the
     * shadow is full or the memory file system is.
     */
    public boolean takeSlots() {
        if (slotsTaken >= capacity) {
            return false;
        }
        int slotsPerStep = SLOT_STEP_BYTES >> pageShift;
        int n = Math.min(slotsPerStep, capacity - slotsTaken);
        try {
            zero(HEADER + ((long) slotsTaken << pageShift), (long) n << pageShift);
        } catch (IOException e) {
            return false;
        }
        slotsTaken += n;
        return true;
    }

    /** Makes index entries of page numbers below {@code pageCount} usable; returns false if it cannot. */
    public boolean index(long pageCount) {
        if (pageCount <= indexed) {
            return true;
        }
        long bytes = Math.min(INDEX_BYTES, (pageCount << 2) + INDEX_STEP_BYTES - 1 & -(long) INDEX_STEP_BYTES);
        if (bytes <= indexed << 2) {
            return false;
        }
        try {
            zero(indexOffset + (indexed << 2), bytes - (indexed << 2));
        } catch (IOException e) {
            return false;
        }
        indexed = bytes >> 2;
        UNSAFE.putLongVolatile(null, headerAddress + INDEXED_AT, indexed);
        return true;
    }

    /** Page {@code pageNo} (indexed) is now held in {@code slot}. */
    public void put(long pageNo, int slot) {
        UNSAFE.putIntVolatile(null, indexAddress + (pageNo << 2), slot + 1);
    }

    /** Page {@code pageNo} is now held by the store file. */
    public void clear(long pageNo) {
        UNSAFE.putIntVolatile(null, indexAddress + (pageNo << 2), 0);
    }

    /** The slot's page as a buffer, to write it to the store file. */
    public ByteBuffer slotBuffer(int slot) {
        int start = slot << pageShift;
        return slots.duplicate().limit(start + pageSize).position(start).slice();
    }

    private void zero(long position, long bytes) throws IOException {
        while (bytes > 0) {
            ByteBuffer z = ZEROS.duplicate().limit((int) Math.min(bytes, ZEROS.capacity()));
            int n = channel.write(z, position);
            position += n;
            bytes -= n;
        }
    }

    /** Closes the file; the mapping stays readable while anything can reach this object. */
    @Override
    public void close() {
        closeQuietly(channel);
    }

    /** Closes and removes the file (its pages reached the store file). */
    public void delete() {
        close();
        deleteQuietly(path);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // Nothing was written through it that the store needs.
            }
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // A leftover shadow names no meta the store opens at again.
        }
    }
}
