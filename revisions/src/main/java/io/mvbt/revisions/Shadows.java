// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;

import io.mvbt.StorageException;
import io.mvbt.pagestore.local.FilePageStore;
import io.mvbt.pagestore.local.ShadowFile;

/**
 * The {@link ShadowFile}s of a store file: the one its sole writer holds its recent pages in
 * ({@link #attach}), the one a killed writer left ({@link #recover}), and, for a read-only store,
 * the one the writer it follows names in its metas ({@link #follow}). A meta names its shadow where
 * it would name the boot ({@link MetaPage.Holder}); its unsealed pages are trusted only while that
 * shadow is there.
 */
final class Shadows {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Where shadows live. */
    private final Path directory;
    private final FilePageStore file;
    private final Path storePath;
    /** A killed writer's shadow, read at open and deleted after the open's checkpoint, and its name. */
    private ShadowFile recovered;
    private Id recoveredId;
    /** The shadow a read-only store reads through, and its name. */
    private ShadowFile followed;
    private Id followedId;

    Shadows(Path directory, FilePageStore file) {
        this.directory = directory;
        this.file = file;
        this.storePath = file.path().toAbsolutePath().normalize();
    }

    /** Whether a meta's unsealed pages, held by the holder it names, may be read. */
    boolean present(long high, long low) {
        Id id = new Id(high, low);
        return BootId.isCurrent(high, low) || id.equals(recoveredId) || id.equals(followedId);
    }

    /**
     * A writer opening: if the newest meta names a shadow that is there, its writer was killed
     * before its checkpoint. Recovery then reads through that shadow and trusts the meta's unsealed
     * pages as after a process crash, and the open's checkpoint writes the pages of the revision it
     * opens at from the shadow into the file ({@code dirty} holds it until then). Nothing is
     * written before recovery has chosen a revision.
     */
    void recover(List<MetaPage.Record> metas, DirtyPages dirty) {
        if (dirty == null || metas.isEmpty()) {
            return;
        }
        MetaPage.Record newest = metas.get(0);
        ShadowFile shadow = open(newest, true);
        if (shadow != null) {
            dirty.attach(shadow);
            recovered = shadow;
            recoveredId = new Id(newest.bootHigh, newest.bootLow);
        }
    }

    /** The open's checkpoint made the store durable without the recovered shadow, if there was one. */
    void recoveredDurable(DirtyPages dirty) {
        if (recovered != null) {
            dirty.detach(true);
            recovered = null;
            recoveredId = null;
        }
    }

    /**
     * Creates this writer's shadow, with room for {@code capacityBytes}, and names it in the metas
     * written from now on; if it cannot, the writer stores into the mapping.
     */
    void attach(DirtyPages dirty, Publisher publisher, long capacityBytes) {
        ShadowFile.deleteOrphans(directory);
        long high = RANDOM.nextLong();
        long low = RANDOM.nextLong();
        int capacity = (int) (Math.min(capacityBytes, ShadowFile.MAX_SLOT_BYTES) / file.pageSize());
        try {
            ShadowFile shadow = ShadowFile.create(ShadowFile.pathOf(directory, high, low), storePath,
                    publisher.storeId(), file.pageSize(), Math.max(16, capacity));
            dirty.attach(shadow);
        } catch (StorageException e) {
            System.getLogger("io.mvbt.shadow").log(System.Logger.Level.WARNING, "pages of " + file.describe()
                    + " are written through its mapping: " + e.getMessage());
            return;
        }
        publisher.holder(new Id(high, low));
    }

    /**
     * A read-only store about to read a meta's pages: reads through the shadow it names, if that
     * shadow is there (its writer holds pages in it), and through no other.
     */
    void follow(MetaPage.Record m) {
        Id id = new Id(m.bootHigh, m.bootLow);
        if (id.equals(followedId)) {
            return;
        }
        ShadowFile shadow = open(m, false);
        if (shadow == null) {
            return;
        }
        ShadowFile before = followed;
        followed = shadow;
        followedId = id;
        file.shadow(shadow);
        if (before != null) {
            // Its mapping stays valid for snapshots that looked pages up through it.
            before.close();
        }
    }

    /** The shadow of this store file that {@code m} names, if it names one and it is there; else null. */
    private ShadowFile open(MetaPage.Record m, boolean write) {
        if (BootId.isCurrent(m.bootHigh, m.bootLow)) {
            return null;
        }
        return ShadowFile.openExisting(ShadowFile.pathOf(directory, m.bootHigh, m.bootLow), storePath, m.storeId,
                write);
    }

    /** A shadow's name in the metas. */
    private record Id(long high, long low) implements MetaPage.Holder {
        @Override
        public boolean shadowed() {
            return true;
        }
    }

    /**
     * Refuses a meta whose commits a shadow holds when no shadow directory is named: opened so,
     * a store would fall back to its last checkpoint and lose them without a word.
     */
    static void checkNamed(Shadows shadows, MetaPage.Record m, String where) {
        if (shadows == null && m.shadowed() && !m.steady()) {
            throw new io.mvbt.ShadowDirectoryMissingException(where + ": its newest commits (revision " + m.revision
                    + ") are held in the shadow file " + ShadowFile.pathOf(Path.of("<dir>"), m.bootHigh, m.bootLow)
                    .getFileName() + " of its writer; open it with StoreOptions.shadowDirectory naming the"
                    + " directory that writer used (nothing was written)");
        }
    }
}
