// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * A read-only store beside a file's writer in another process, or none (see {@link Peers}): its
 * snapshots see the revision that writer announced last, and register in the lock file's reader
 * table, so that the writer reuses no page they reach.
 */
final class FollowerPeers implements Peers {
    private final FileFollower follower;
    private final ReaderSlots slots;

    FollowerPeers(FileFollower follower, ReaderSlots slots) {
        this.follower = follower;
        this.slots = slots;
    }

    @Override
    public boolean readOnly() {
        return true;
    }

    @Override
    public void open(Runnable openAsWriter) {
        follower.newest();
    }

    @Override
    public Revision newest() {
        return follower.newest();
    }

    @Override
    public Revision hold(int slot) {
        return follower.hold(slot);
    }

    @Override
    public void release(int slot) {
        slots.release(slot);
    }
}
