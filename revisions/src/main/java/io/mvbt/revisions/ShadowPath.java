// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * The sole writer of a file holds its pages in a shadow ({@link DirtyPages}) until a checkpoint
 * or a SYNC commit writes them into the file with positional writes; pages the shadow has no room
 * for, and all of them while no shadow is attached (before it is made, or if it could not be),
 * take the path of {@code base}. The writer does not store into the mapping, so a checkpoint syncs
 * the last pages beside it and nothing is prefaulted while the shadow is attached.
 */
final class ShadowPath implements PagePath {
    private final MappedPath base;
    private final DirtyPages dirty;
    private final Shadows shadows;
    private final Publisher publisher;
    private final Health health;
    private final long capacityBytes;

    ShadowPath(MappedPath base, DirtyPages dirty, Shadows shadows, Publisher publisher, Health health,
            long capacityBytes) {
        this.base = base;
        this.dirty = dirty;
        this.shadows = shadows;
        this.publisher = publisher;
        this.health = health;
        this.capacityBytes = capacityBytes;
    }

    @Override
    public void begin() {
        base.begin();
    }

    @Override
    public void allocated(long pageNo, int pages, long revision) {
        if (pages > 1) {
            // A run is written in the file: no slot may stand for one of its pages.
            dirty.drop(pageNo, pages);
        } else if (dirty.take(pageNo, revision) == 0) {
            base.allocated(pageNo, pages, revision);
        }
    }

    @Override
    public long builtAddress(long pageNo) {
        return base.builtAddress(pageNo);
    }

    @Override
    public void writingRun(long pageNo, int pages) {
        base.writingRun(pageNo, pages);
        if (pages == 1) {
            // A page allocated alone was given a slot; allocate dropped those of longer runs.
            dirty.drop(pageNo, 1);
        }
    }

    @Override
    public void writeBuilt() {
        base.writeBuilt();
    }

    /** Slots of a shadow whose pages the file now holds go back once no reader can hold them. */
    @Override
    public void published(long durable, long revision, long oldestReader) {
        dirty.retire(durable, revision, oldestReader);
        dirty.reclaim(oldestReader);
    }

    @Override
    public boolean checkpointDue() {
        return dirty.halfFull();
    }

    @Override
    public boolean reusesPages() {
        return true;
    }

    @Override
    public boolean sealsBesideCheckpoint() {
        return !dirty.attached();
    }

    /** Seals, and writes the pages the shadow holds into the file. */
    @Override
    public void seal(PageAccess sealer, Revision r, long since) {
        if (!dirty.attached()) {
            base.seal(sealer, r, since);
            return;
        }
        health.sync(() -> RevisionWalker.seal(sealer, r, since, dirty::writeBack), "writing pages into the file failed");
    }

    @Override
    public void flush() {
        base.flush();
    }

    @Override
    public long steady(int slot, PageAccess sealer, long sealed) {
        return base.steady(this, slot, sealer, sealed, dirty.attached());
    }

    @Override
    public void recovered() {
        shadows.recoveredDurable(dirty);
    }

    @Override
    public void opened() {
        shadows.attach(dirty, publisher, capacityBytes);
    }

    @Override
    public void start(FreeSpace space) {
        if (!dirty.attached()) {
            base.start(space);
        }
    }

    @Override
    public void stop() {
        base.stop();
    }

    @Override
    public void prepareUpcoming(FreeSpace space, long maxPages) {
        base.prepareUpcoming(space, maxPages);
    }

    @Override
    public long pagesPrepared() {
        return base.pagesPrepared();
    }

    /** Every page is in the file if the close checkpointed: the shadow goes; else the next open reads it. */
    @Override
    public void closed(boolean checkpointed) {
        dirty.detach(checkpointed);
    }
}
