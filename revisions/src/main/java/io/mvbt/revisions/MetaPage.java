// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import org.agrona.BufferUtil;
import static org.agrona.UnsafeAccess.UNSAFE;

import io.mvbt.CorruptionException;
import io.mvbt.MvbtException;
import io.mvbt.NotAStoreException;
import io.mvbt.UnsupportedFormatException;
import io.mvbt.btree.TreeRoot;
import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.pagestore.PageStore;

/**
 * A meta slot: the root of one committed revision. Pages 0 to 3 of a store are meta slots; the
 * newest valid one is where the store starts. Layout (little-endian), documented in docs/format.md:
 *
 * <pre>
 *   0 u32 checksum        CRC32C of bytes 4 .. length
 *   4 u32 length          bytes in use
 *   8 u64 magic           "mvbt-met" as bytes
 *  16 u32 format          {@link #FORMAT_VERSION}
 *  20 u32 pageSize
 *  24 u64 sequence        increases with every meta write
 *  32 u64 revision
 *  40 u64 durableRevision pages of this revision and older were durable before this meta was written
 *  48 u32 flags           SEALED: every page newer than durableRevision carries its checksum
 *  52 u32 reserved
 *  56 u64 bootHigh, 64 u64 bootLow   the boot this meta was written in
 *  72 u64 pageCount
 *  80 u64 commitMillis
 *  88 32 bytes catalog root (page, revision, entries, depth)
 * 120 u64 freeMapRoot, 128 u64 freeMapRevision, 136 u32 freeMapHeight
 * 140 u32 flipCount
 * 144 u64 storeId         random at creation; seeds every page checksum
 * 152 u64 flips[flipCount] pages whose in-use bit differs from the free map
 *     then {@link FreshRoots}: roots of trees newer than their catalog entries (format 2 on)
 * </pre>
 * Format 3 adds no field here: it may set the INLINE_ONLY flag of branch entries ({@code Node}) and
 * of garbage records. Older releases must refuse such a store: they would carry the flag along
 * without clearing it when they write an overflow value below, and its pages would then leak.
 * A store of format 1 (no fresh roots), 2 or 3 opens, and its next meta is written in format 4.
 * Every format keeps the first 24 bytes where they are, so that an intact meta of a newer format
 * is told from a damaged one.
 */
final class MetaPage {
    static final long MAGIC = ByteBuffer.wrap("mvbt-met".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
            .order(ByteOrder.LITTLE_ENDIAN).getLong();
    /** 4: named revisions (the internal tree {@code \0named}), which releases of format 3 would not hold. */
    static final int FORMAT_VERSION = 4;
    /** The format before {@link FreshRoots}: read, never written. */
    static final int FORMAT_WITHOUT_FRESH_ROOTS = 1;
    static final int FLAG_SEALED = 1;
    /** The pages of commits not yet checkpointed are held in the shadow the boot id field names. */
    static final int FLAG_SHADOWED = 2;
    /**
     * A redo log was recording when this meta was written: a segment holding the revisions after it
     * exists (or the records past the meta are lost, which replay then says instead of opening).
     */
    static final int FLAG_LOGGED = 4;

    static final int CHECKSUM = 0;
    static final int LENGTH = 4;
    static final int MAGIC_OFFSET = 8;
    static final int FORMAT = 16;
    static final int PAGE_SIZE = 20;
    static final int SEQUENCE = 24;
    static final int REVISION = 32;
    static final int DURABLE_REVISION = 40;
    static final int FLAGS = 48;
    static final int BOOT_HIGH = 56;
    static final int BOOT_LOW = 64;
    static final int PAGE_COUNT = 72;
    static final int COMMIT_MILLIS = 80;
    static final int CATALOG = 88;
    static final int FREE_ROOT = 120;
    static final int FREE_REVISION = 128;
    static final int FREE_HEIGHT = 136;
    static final int FLIP_COUNT = 140;
    static final int STORE_ID = 144;
    static final int FLIPS = 152;

    /** What a meta slot says. */
    static final class Record {
        int slot;
        long sequence;
        long revision;
        long durableRevision;
        int flags;
        long bootHigh;
        long bootLow;
        long pageCount;
        long commitMillis;
        final TreeRoot catalog = new TreeRoot();
        long freeRoot;
        long freeRevision;
        int freeHeight;
        long storeId;
        long[] flips;
        FreshRoots fresh = FreshRoots.NONE;

        boolean steady() {
            return durableRevision == revision;
        }

        boolean sealed() {
            return (flags & FLAG_SEALED) != 0;
        }

        boolean shadowed() {
            return (flags & FLAG_SHADOWED) != 0;
        }

        boolean logged() {
            return (flags & FLAG_LOGGED) != 0;
        }
    }

    private MetaPage() {
    }

    /**
     * What holds the pages of unsealed commits until their checkpoint, named in each meta: this
     * boot's page cache ({@link BootId}), or a writer's {@link DirtyPages} shadow. Recovery trusts
     * a meta's unsealed pages only while that holder is there.
     */
    interface Holder {
        long high();

        long low();

        /** Whether this is a shadow, not a boot. */
        default boolean shadowed() {
            return false;
        }

        Holder BOOT = new Holder() {
            @Override
            public long high() {
                return BootId.HIGH;
            }

            @Override
            public long low() {
                return BootId.LOW;
            }
        };
    }

    /**
     * Flips kept in a meta page before the free map is rewritten: few, since every commit writes and
     * checksums them all; the page, after the largest fresh roots, would allow more.
     */
    static int flipCapacity(int pageSize) {
        return Math.min(64, (pageSize - FLIPS - FreshRoots.MAX_BYTES) / 8);
    }

    /** Writes a meta page at {@code slot}, checksum last. */
    static void write(PageStore store, Checksums checksums, long storeId, Holder holder, int slot, long sequence,
            Revision r, long durableRevision, int flags, FlipSet flips) {
        int length = fill(store.address(slot), store.pageSize(), storeId, holder, sequence, r, durableRevision, flags,
                flips);
        seal(store, checksums, slot, length);
    }

    /**
     * Writes a meta page as {@link #write} does, but builds it in {@code scratch} (a page of direct
     * memory) and hands it to the file with one positional write: a commit that syncs then stores
     * nothing into the mapping, whose slot the last sync left clean. A reader that catches the write
     * half done sees a wrong checksum, as with a torn store.
     */
    static void writePositional(ByteBuffer scratch, PageStore store, Checksums checksums, long storeId, Holder holder,
            int slot, long sequence, Revision r, long durableRevision, int flags, FlipSet flips) {
        long page = BufferUtil.address(scratch);
        int length = fill(page, store.pageSize(), storeId, holder, sequence, r, durableRevision, flags, flips);
        UNSAFE.putInt(page + CHECKSUM, checksums.ofMeta(scratch, length));
        writeBuilt(scratch, length, store, slot);
    }

    /** Writes a meta built in {@code page} (first {@code length} bytes) into {@code slot}, positionally. */
    static void writeBuilt(ByteBuffer page, int length, PageStore store, int slot) {
        store.write(slot, page.duplicate().position(0).limit(length));
        store.written(slot, 1);
    }

    /**
     * Builds in {@code page} (direct memory) a steady copy of the meta in slot {@code from} with
     * {@code sequence}, checksum included; returns its length, for {@link #writeBuilt}.
     */
    static int buildSteadyCopy(PageStore store, Checksums checksums, int from, ByteBuffer page, long sequence,
            int logged) {
        long address = BufferUtil.address(page);
        int length = fillSteadyCopy(store, from, address, sequence, logged);
        UNSAFE.putInt(address + CHECKSUM, checksums.ofMeta(page, length));
        return length;
    }

    /** Writes everything but the checksum at {@code page}; returns the length the checksum covers. */
    private static int fill(long page, int pageSize, long storeId, Holder holder, long sequence, Revision r,
            long durableRevision, int flags, FlipSet flips) {
        int flipCount = flips.compact();
        int length = FLIPS + 8 * flipCount + r.fresh.bytes();
        UNSAFE.putInt(page + LENGTH, length);
        UNSAFE.putLong(page + MAGIC_OFFSET, MAGIC);
        UNSAFE.putInt(page + FORMAT, FORMAT_VERSION);
        UNSAFE.putInt(page + PAGE_SIZE, pageSize);
        UNSAFE.putLong(page + SEQUENCE, sequence);
        UNSAFE.putLong(page + REVISION, r.revision);
        UNSAFE.putLong(page + DURABLE_REVISION, durableRevision);
        UNSAFE.putInt(page + FLAGS, flags | (holder.shadowed() ? FLAG_SHADOWED : 0));
        UNSAFE.putInt(page + FLAGS + 4, 0);
        UNSAFE.putLong(page + BOOT_HIGH, holder.high());
        UNSAFE.putLong(page + BOOT_LOW, holder.low());
        UNSAFE.putLong(page + PAGE_COUNT, r.pageCount);
        UNSAFE.putLong(page + COMMIT_MILLIS, r.commitMillis);
        r.catalog.writeTo(null, page + CATALOG);
        UNSAFE.putLong(page + FREE_ROOT, r.freeMapRoot);
        UNSAFE.putLong(page + FREE_REVISION, r.freeMapRevision);
        UNSAFE.putInt(page + FREE_HEIGHT, r.freeMapHeight);
        UNSAFE.putInt(page + FLIP_COUNT, flipCount);
        UNSAFE.putLong(page + STORE_ID, storeId);
        long at = page + FLIPS;
        for (int i = 0; i < flipCount; i++, at += 8) {
            UNSAFE.putLong(at, flips.member(i));
        }
        r.fresh.writeTo(at);
        return length;
    }

    /** Copies slot {@code from} to slot {@code to} as a durable (steady) meta with a new sequence. */
    static void writeSteadyCopy(PageStore store, Checksums checksums, int from, int to, long sequence, int logged) {
        int length = fillSteadyCopy(store, from, store.address(to), sequence, logged);
        seal(store, checksums, to, length);
    }

    /**
     * Builds at {@code dst} a steady copy of the meta in slot {@code from} with {@code sequence} and
     * the {@code logged} flag (as the log is now), all but its checksum; returns the length the
     * checksum covers.
     */
    private static int fillSteadyCopy(PageStore store, int from, long dst, long sequence, int logged) {
        long src = store.address(from);
        int length = UNSAFE.getInt(src + LENGTH);
        UNSAFE.copyMemory(src, dst, length);
        UNSAFE.putLong(dst + SEQUENCE, sequence);
        UNSAFE.putLong(dst + DURABLE_REVISION, UNSAFE.getLong(src + REVISION));
        UNSAFE.putInt(dst + FLAGS, (UNSAFE.getInt(src + FLAGS) & ~FLAG_LOGGED) | FLAG_SEALED | logged);
        return length;
    }

    /**
     * Whether the meta in {@code slot} (one this process wrote or adopted) is steady and carries the
     * {@code logged} flag as given.
     */
    static boolean isSteady(PageStore store, int slot, int logged) {
        long page = store.address(slot);
        return UNSAFE.getLong(page + DURABLE_REVISION) == UNSAFE.getLong(page + REVISION)
                && (UNSAFE.getInt(page + FLAGS) & FLAG_LOGGED) == logged;
    }

    private static void seal(PageStore store, Checksums checksums, int slot, int length) {
        long page = store.address(slot);
        // Everything the meta points at must be in memory before the meta can be seen valid.
        UNSAFE.storeFence();
        UNSAFE.putInt(page + CHECKSUM, checksums.ofMeta(slot, length));
        store.written(slot, 1);
    }

    /** Reads a slot; null if it holds no valid meta (never written, torn, or damaged). */
    static Record read(PageStore store, Checksums checksums, int slot) {
        long page = store.address(slot);
        int pageSize = store.pageSize();
        if (UNSAFE.getLong(page + MAGIC_OFFSET) != MAGIC || UNSAFE.getInt(page + PAGE_SIZE) != pageSize) {
            return null;
        }
        int length = UNSAFE.getInt(page + LENGTH);
        if (length < PAGE_SIZE + 4 || length > pageSize
                || UNSAFE.getInt(page + CHECKSUM) != checksums.ofMeta(slot, length)) {
            return null;
        }
        int format = UNSAFE.getInt(page + FORMAT);
        if (format > FORMAT_VERSION) {
            // Intact, so not damage: taking it for damage would open the store at an older meta,
            // whose free pages a newer release may have used since.
            throw new UnsupportedFormatException(store.describe() + " was written by a newer release of mvbt, in"
                    + " format " + format + "; this release reads formats " + FORMAT_WITHOUT_FRESH_ROOTS + " to "
                    + FORMAT_VERSION);
        }
        if (format < FORMAT_WITHOUT_FRESH_ROOTS || length < FLIPS) {
            return null;
        }
        Record m = new Record();
        m.slot = slot;
        m.sequence = UNSAFE.getLong(page + SEQUENCE);
        m.revision = UNSAFE.getLong(page + REVISION);
        m.durableRevision = UNSAFE.getLong(page + DURABLE_REVISION);
        m.flags = UNSAFE.getInt(page + FLAGS);
        m.bootHigh = UNSAFE.getLong(page + BOOT_HIGH);
        m.bootLow = UNSAFE.getLong(page + BOOT_LOW);
        m.pageCount = UNSAFE.getLong(page + PAGE_COUNT);
        m.commitMillis = UNSAFE.getLong(page + COMMIT_MILLIS);
        m.catalog.readFrom(null, page + CATALOG);
        m.freeRoot = UNSAFE.getLong(page + FREE_ROOT);
        m.freeRevision = UNSAFE.getLong(page + FREE_REVISION);
        m.freeHeight = UNSAFE.getInt(page + FREE_HEIGHT);
        m.storeId = UNSAFE.getLong(page + STORE_ID);
        int flips = UNSAFE.getInt(page + FLIP_COUNT);
        int flipsEnd = FLIPS + 8 * flips;
        if (flips < 0 || flips > (length - FLIPS) / 8 || m.durableRevision > m.revision
                || m.pageCount < PageStore.META_SLOTS || m.freeHeight < 0 || m.freeHeight > 16) {
            return null;
        }
        if (format > FORMAT_WITHOUT_FRESH_ROOTS) {
            m.fresh = FreshRoots.readFrom(page + flipsEnd, length - flipsEnd);
            if (m.fresh == null) {
                return null;
            }
        } else if (length != flipsEnd) {
            return null;
        }
        m.flips = new long[flips];
        for (int i = 0; i < flips; i++) {
            m.flips[i] = UNSAFE.getLong(page + FLIPS + 8L * i);
        }
        return m;
    }

    /** Most bytes a file whose creation was cut short can hold: the first growth, one 1 MiB chunk. */
    static final long UNFINISHED_CREATION_BYTES = 1 << 20;

    /**
     * Finds the page size of the existing store file at {@code path} from any meta slot that names
     * one; 0 for a file whose creation was cut short (only zeros, no larger than its first growth).
     * Throws {@link NotAStoreException} for a file with the mvbt magic in none of its meta slots, and
     * {@link CorruptionException} for one whose metas carry the magic but no usable page size.
     */
    static int detectPageSize(Path path, FileChannel channel, long fileSize) throws IOException {
        for (int pageSize = PageStore.MIN_PAGE_SIZE; pageSize <= PageStore.MAX_PAGE_SIZE; pageSize *= 2) {
            for (int slot = 0; slot < PageStore.META_SLOTS; slot++) {
                ByteBuffer head = FilePageStore.readAt(channel, (long) slot * pageSize, 24)
                        .order(ByteOrder.LITTLE_ENDIAN);
                if (head.remaining() == 24 && head.getLong(MAGIC_OFFSET) == MAGIC
                        && head.getInt(PAGE_SIZE) == pageSize) {
                    return pageSize;
                }
            }
        }
        // Slot 0 is at offset 0 whatever the page size: a meta there with pages larger than this
        // release knows is a newer release's store, not damage.
        ByteBuffer first = FilePageStore.readAt(channel, 0, 24).order(ByteOrder.LITTLE_ENDIAN);
        if (first.remaining() == 24 && first.getLong(MAGIC_OFFSET) == MAGIC) {
            int size = first.getInt(PAGE_SIZE);
            if (size > PageStore.MAX_PAGE_SIZE && Integer.bitCount(size) == 1) {
                throw new UnsupportedFormatException("the store file was written by a newer release of mvbt, with "
                        + size + "-byte pages (this release supports up to " + PageStore.MAX_PAGE_SIZE
                        + "); nothing was written to it");
            }
        }
        // A creation cut short leaves at most its first growth (1 MiB) of zeros. A larger file, or one
        // with any other byte set, held a store whose meta pages are gone: creating a new store over
        // it would throw away whatever its other pages still hold.
        if (fileSize <= UNFINISHED_CREATION_BYTES && allZero(channel, fileSize)) {
            return 0;
        }
        if (fileSize < MAGIC_OFFSET + 8) {
            // Too short to hold the magic, so it cannot tell: a store cut to a few bytes is damage.
            throw new CorruptionException(-1, "store file " + path + " holds " + fileSize + " bytes, too few for a meta"
                    + " page: a store cut short, or not a store; nothing was written to it");
        }
        throw noValidMeta("store file " + path, path.toString(), fileSize + " bytes", anyMagic(channel),
                allZero(channel, Math.min(fileSize, (long) PageStore.META_SLOTS * PageStore.MIN_PAGE_SIZE)));
    }

    /**
     * Why {@code where} has no meta to open at. The magic in a meta slot makes it a damaged store. So
     * do meta slots of only zeros, the mark of lost writes, which a file of another kind rarely
     * starts with. Without either, it is another kind of file: a store whose four meta pages, apart
     * and written at different times, all lost even their magic to something other than zeros is
     * far less likely than a wrong path.
     */
    static MvbtException noValidMeta(String where, String whereAlone, String size, boolean magic, boolean zeros) {
        if (magic) {
            return new CorruptionException(-1, "every meta page of " + where + " is damaged: they carry the mvbt"
                    + " magic but none verifies (" + size + "); nothing was written to it (restore the store from a"
                    + " copy)");
        }
        if (zeros) {
            return new CorruptionException(-1, "the meta pages of " + where + " hold only zeros (" + size + "): a"
                    + " store that lost them, or not a store; nothing was written to it");
        }
        return new NotAStoreException(whereAlone, whereAlone + " is not an mvbt store: none of its meta pages holds"
                + " the mvbt magic (" + size + "); nothing was written to it. Check the path; a new store needs a"
                + " path where no file is");
    }

    /** Whether the magic lies where a meta slot would start, for any page size. */
    private static boolean anyMagic(FileChannel channel) throws IOException {
        for (int pageSize = PageStore.MIN_PAGE_SIZE; pageSize <= PageStore.MAX_PAGE_SIZE; pageSize *= 2) {
            for (int slot = 0; slot < PageStore.META_SLOTS; slot++) {
                ByteBuffer head = FilePageStore.readAt(channel, (long) slot * pageSize, 16)
                        .order(ByteOrder.LITTLE_ENDIAN);
                if (head.remaining() == 16 && head.getLong(MAGIC_OFFSET) == MAGIC) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Why {@code store}, whose pages hold no valid meta, cannot open ({@link #noValidMeta}): its meta
     * slots are looked at for the magic and for anything but zeros.
     */
    static MvbtException noValidMeta(PageStore store) {
        long slots = Math.min(PageStore.META_SLOTS, store.pageCount());
        boolean magic = false;
        boolean zeros = true;
        for (int slot = 0; slot < slots; slot++) {
            long page = store.address(slot);
            magic |= UNSAFE.getLong(page + MAGIC_OFFSET) == MAGIC;
            for (int i = 0; i < store.pageSize() && zeros; i += 8) {
                zeros = UNSAFE.getLong(page + i) == 0;
            }
        }
        return noValidMeta(store.describe(), store.describe(), store.pageCount() + " pages", magic, zeros);
    }

    private static boolean allZero(FileChannel channel, long length) throws IOException {
        ByteBuffer all = FilePageStore.readAt(channel, 0, (int) length);
        while (all.hasRemaining()) {
            if (all.get() != 0) {
                return false;
            }
        }
        return true;
    }
}
