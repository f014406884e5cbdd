// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.collections.LongArrayList;

import io.mvbt.CorruptionException;
import io.mvbt.btree.PageReader;
import io.mvbt.btree.TreeCursor;
import io.mvbt.btree.TreeRoot;

/**
 * Revisions kept under a name until released ({@link Store#retain}, {@link WriteTxn#retain}). They
 * live, with the data, in an internal tree of the catalog ({@value #NAME}): name (UTF-8) to what a
 * snapshot of the revision needs, the fields of its meta page:
 *
 * <pre>
 *  0 u64 revision        8 u64 commitMillis     16 u64 durableRevision   24 u64 sealedThrough (-1: none)
 * 32 u64 pageCount      40 u64 freeMapRoot      48 u64 freeMapRevision   56 u32 freeMapHeight
 * 60 u32 flags (bit 0 SELF)                     64 32-byte catalog root record
 * 96 u32 fresh roots, then per root: u32 name length, 32-byte root record, the name
 * </pre>
 *
 * A record with the SELF flag names the revision whose catalog holds it: a commit cannot write its
 * own catalog's root into that catalog, so {@link WriteTxn#retain} writes SELF and the next commit
 * writes the fields from its base (every commit resolves its base's SELF records, so any revision
 * whose catalog still holds one has the trees of the revision it names).
 *
 * <p>For the writer it is also a holder that never goes away ({@link Holders}): every named
 * revision, the one a running commit names, and a released one until the revision that released
 * it is durable (recovery could open before the release, where the name still stands). Which
 * revision freed a page is not persisted, so at open the pages a named revision reaches that the
 * free map calls free are made to wait again ({@link #pinReachable}).
 */
final class NamedRevisions {
    static final String NAME = "\0named";
    static final byte[] KEY = NAME.getBytes(StandardCharsets.UTF_8);
    /** Longest name, in UTF-8 bytes. */
    static final int MAX_NAME_BYTES = 128;
    static final int REVISION = 0;
    static final int COMMIT_MILLIS = 8;
    static final int DURABLE_REVISION = 16;
    static final int SEALED_THROUGH = 24;
    static final int PAGE_COUNT = 32;
    static final int FREE_ROOT = 40;
    static final int FREE_REVISION = 48;
    static final int FREE_HEIGHT = 56;
    static final int FLAGS = 60;
    static final int CATALOG = 64;
    static final int FRESH = 96;
    static final int FLAG_SELF = 1;

    /** Named revisions of the newest revision, ascending. */
    private long[] named = new long[0];
    /** Released names' revisions and the revisions that released them, pairs, until those are durable. */
    private final LongArrayList released = new LongArrayList();
    /** A revision the running commit names, held while it commits; -1 none. Volatile: read on every commit. */
    private volatile long staged = -1;
    /** Whether the newest revision's catalog holds a SELF record, which the next commit resolves. */
    private volatile boolean selfRecords;

    // ------------------------------------------------------------------ the writer's holders

    /** Takes on the names of {@code newest} (at open, at a turn, after a commit that changed them). */
    synchronized void load(Revision newest, PageReader r) {
        long[] before = named;
        List<Entry> entries = list(r, newest);
        LongArrayList now = new LongArrayList();
        boolean self = false;
        for (Entry e : entries) {
            now.addLong(e.revision.revision);
            self |= e.self;
        }
        long[] sorted = now.toLongArray();
        Arrays.sort(sorted);
        for (long rev : before) {
            if (Arrays.binarySearch(sorted, rev) < 0 && !isReleased(rev)) {
                // Released by another process's commit: recovery may still open before it.
                released.addLong(rev);
                released.addLong(newest.revision);
            }
        }
        named = sorted;
        selfRecords = self;
    }

    private boolean isReleased(long rev) {
        for (int i = 0; i < released.size(); i += 2) {
            if (released.getLong(i) == rev) {
                return true;
            }
        }
        return false;
    }

    /** The running commit names {@code revision} (an existing one): it is held from now on; -1 to stop. */
    void stage(long revision) {
        staged = revision;
    }

    /** A commit at {@code at} released the name of {@code revision}: held until {@code at} is durable. */
    synchronized void released(long revision, long at) {
        released.addLong(revision);
        released.addLong(at);
    }

    /** Adds every revision a name holds to {@code held}, and forgets released ones that {@code durable} passed. */
    synchronized void addHeld(Holders held, long durable) {
        for (long rev : named) {
            held.add(rev);
        }
        long s = staged;
        if (s >= 0) {
            held.add(s);
        }
        for (int i = released.size() - 2; i >= 0; i -= 2) {
            if (released.getLong(i + 1) <= durable) {
                released.removeAt(i + 1);
                released.removeAt(i);
            } else {
                held.add(released.getLong(i));
            }
        }
    }

    /** Whether {@code revision} is named. */
    synchronized boolean isNamed(long revision) {
        return Arrays.binarySearch(named, revision) >= 0;
    }

    /** Whether any revision is named. */
    synchronized boolean any() {
        return named.length > 0;
    }

    /** Whether the newest revision's catalog holds a SELF record for the next commit to resolve. */
    boolean selfRecords() {
        return selfRecords;
    }

    /**
     * At open, before anything is allocated: every page a named revision reaches that the free map
     * calls free waits again. Which revision freed it is not persisted, but a page lives over one
     * run of revisions: one that named revision N reaches and the next newer named revision does
     * not was freed at or before that one (or the newest), so it waits for the newest held revision
     * below that, and every held one from the oldest at or above the revision that wrote it. Each
     * named revision is walked newest first, passing over the subtrees the next newer one shares
     * ({@link SharedSubtrees}): those are in use (the newest's) or wait already (a newer name's, whose
     * walk came first), so an open reads what changed since each name, not each whole revision.
     */
    void pinReachable(PageAccess access, Revision newest, FreeSpace space, long[] held, int n) {
        List<Entry> entries = list(access, newest);
        entries.sort((a, b) -> Long.compare(b.revision.revision, a.revision.revision));
        Revision newer = newest;
        for (Entry e : entries) {
            Revision rev = e.revision;
            long holder = PendingPages.floorBelow(held, n, newer.revision);
            // What the next newer one shares is in use (the newest) or waits already (a newer name).
            SharedSubtrees shared = SharedSubtrees.of(newer.reader(access), newer, access.pageSize());
            RevisionWalker.walkUnshared(rev.reader(access), rev, access.pageSize(), shared,
                    (pageNo, written, type, address, pages) -> {
                        for (long p = pageNo; p < pageNo + pages; p++) {
                            space.pendIfFree(p, holder, PendingPages.ceiling(held, n, written));
                        }
                    });
            newer = rev;
        }
    }

    // ------------------------------------------------------------------ reading the tree

    /** A named revision as the tree records it. */
    record Entry(String name, Revision revision, boolean self) {
    }

    /** The root of the named tree in {@code r}, or null if it has none. */
    static TreeRoot rootIn(PageReader reader, Revision r) {
        TreeRoot root = r.fresh.lookup(KEY);
        return root != null ? root : Catalog.lookup(reader, r.catalog, KEY);
    }

    /** Every named revision of {@code r}, in name order. */
    static List<Entry> list(PageReader reader, Revision r) {
        List<Entry> out = new ArrayList<>();
        TreeRoot root = rootIn(reader, r);
        if (root == null) {
            return out;
        }
        TreeCursor c = new TreeCursor().reset(reader, root);
        for (boolean ok = c.first(); ok; ok = c.next()) {
            String name = c.key().getStringWithoutLengthUtf8(0, c.keyLength());
            out.add(decode(name, c.value(), r));
        }
        return out;
    }

    /** The named revision {@code name} of {@code r}, or null. */
    static Entry find(PageReader reader, Revision r, byte[] name) {
        TreeRoot root = rootIn(reader, r);
        if (root == null) {
            return null;
        }
        TreeCursor c = new TreeCursor().reset(reader, root);
        if (!c.find(name, BYTE_BASE, name.length)) {
            return null;
        }
        return decode(new String(name, StandardCharsets.UTF_8), c.value(), r);
    }

    /** Whether the named tree at {@code root} (being written) has {@code name}. */
    static boolean findIn(PageReader reader, TreeRoot root, byte[] name) {
        return !root.isEmpty() && new TreeCursor().reset(reader, root).find(name, BYTE_BASE, name.length);
    }

    /** The revision the record of {@code name} (which must exist) names. */
    static long revisionAt(PageReader reader, TreeRoot root, byte[] name) {
        TreeCursor c = new TreeCursor().reset(reader, root);
        c.find(name, BYTE_BASE, name.length);
        return c.value().getLong(REVISION, ByteOrder.LITTLE_ENDIAN);
    }

    private static final long BYTE_BASE = org.agrona.UnsafeAccess.UNSAFE.arrayBaseOffset(byte[].class);

    /** Reads a record; a SELF record takes its fields from {@code holder}, the revision whose catalog holds it. */
    static Entry decode(String name, DirectBuffer value, Revision holder) {
        if (value.capacity() < FRESH + 4) {
            throw new CorruptionException(-1, "named revision '" + name + "': record of " + value.capacity()
                    + " bytes, expected at least " + (FRESH + 4));
        }
        byte[] bytes = new byte[value.capacity()];
        value.getBytes(0, bytes);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long revision = b.getLong(REVISION);
        boolean self = (b.getInt(FLAGS) & FLAG_SELF) != 0;
        if (self) {
            return new Entry(name, of(holder, revision, holder.commitMillis, holder.sealedThrough), true);
        }
        TreeRoot catalog = new TreeRoot().readFrom(bytes, BYTE_BASE + CATALOG);
        FreshRoots fresh = FreshRoots.NONE;
        int count = b.getInt(FRESH);
        int at = FRESH + 4;
        for (int i = 0; i < count; i++) {
            if (count > FreshRoots.MAX_ROOTS || at + 4 + TreeRoot.BYTES > bytes.length) {
                throw new CorruptionException(-1, "named revision '" + name + "': fresh roots cut short");
            }
            int length = b.getInt(at);
            if (length < 1 || length > FreshRoots.MAX_KEY || at + 4 + TreeRoot.BYTES + length > bytes.length) {
                throw new CorruptionException(-1, "named revision '" + name + "': a fresh root's name of " + length
                        + " bytes");
            }
            TreeRoot root = new TreeRoot().readFrom(bytes, BYTE_BASE + at + 4);
            fresh = fresh.with(Arrays.copyOfRange(bytes, at + 4 + TreeRoot.BYTES, at + 4 + TreeRoot.BYTES + length), root);
            at += 4 + TreeRoot.BYTES + length;
        }
        Revision r = new Revision(revision, b.getLong(DURABLE_REVISION), catalog, fresh, b.getLong(PAGE_COUNT),
                b.getLong(COMMIT_MILLIS), b.getLong(FREE_ROOT), b.getLong(FREE_REVISION), b.getInt(FREE_HEIGHT),
                new TreeRoot[16]).sealedThrough(b.getLong(SEALED_THROUGH));
        return new Entry(name, r, false);
    }

    /** {@code holder}'s trees as revision {@code revision}. */
    private static Revision of(Revision holder, long revision, long commitMillis, long sealedThrough) {
        return new Revision(revision, holder.durableRevision, holder.catalog, holder.fresh, holder.pageCount,
                commitMillis, holder.freeMapRoot, holder.freeMapRevision, holder.freeMapHeight, new TreeRoot[16])
                .sealedThrough(sealedThrough);
    }

    // ------------------------------------------------------------------ writing records

    /** The record of {@code r}, sealed through {@code sealedThrough}. */
    static byte[] encode(Revision r, long sealedThrough) {
        int length = FRESH + 4;
        for (int i = 0; i < r.fresh.size(); i++) {
            length += 4 + TreeRoot.BYTES + r.fresh.key(i).length;
        }
        byte[] bytes = new byte[length];
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(REVISION, r.revision);
        b.putLong(COMMIT_MILLIS, r.commitMillis);
        b.putLong(DURABLE_REVISION, r.durableRevision);
        b.putLong(SEALED_THROUGH, sealedThrough);
        b.putLong(PAGE_COUNT, r.pageCount);
        b.putLong(FREE_ROOT, r.freeMapRoot);
        b.putLong(FREE_REVISION, r.freeMapRevision);
        b.putInt(FREE_HEIGHT, r.freeMapHeight);
        r.catalog.writeTo(bytes, BYTE_BASE + CATALOG);
        b.putInt(FRESH, r.fresh.size());
        int at = FRESH + 4;
        for (int i = 0; i < r.fresh.size(); i++) {
            byte[] key = r.fresh.key(i);
            b.putInt(at, key.length);
            r.fresh.root(i).writeTo(bytes, BYTE_BASE + at + 4);
            System.arraycopy(key, 0, bytes, at + 4 + TreeRoot.BYTES, key.length);
            at += 4 + TreeRoot.BYTES + key.length;
        }
        return bytes;
    }

    /** The SELF record of {@code revision}: the revision whose catalog will hold it. */
    static byte[] self(long revision) {
        byte[] bytes = new byte[FRESH + 4];
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(REVISION, revision);
        b.putInt(FLAGS, FLAG_SELF);
        return bytes;
    }

    /** A name's key, checked: 1 to {@value #MAX_NAME_BYTES} UTF-8 bytes of well-formed text. */
    static byte[] key(String name) {
        java.util.Objects.requireNonNull(name, "name must not be null");
        byte[] key = name.getBytes(StandardCharsets.UTF_8);
        if (key.length == 0 || key.length > MAX_NAME_BYTES || !new String(key, StandardCharsets.UTF_8).equals(name)) {
            throw new IllegalArgumentException("a revision name is 1 to " + MAX_NAME_BYTES
                    + " UTF-8 bytes of well-formed text: '" + name + "' has " + key.length);
        }
        return key;
    }
}
