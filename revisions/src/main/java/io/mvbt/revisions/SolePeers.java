// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * The one writer of a file or of memory (see {@link Peers}): the newest revision is its own, and
 * readers (snapshots here, read-only stores of the file elsewhere) register in the reader table.
 */
final class SolePeers implements Peers {
    private final ReaderRegistry registry;
    private final ReaderSlots slots;
    private final Publisher publisher;

    SolePeers(ReaderRegistry registry, ReaderSlots slots, Publisher publisher) {
        this.registry = registry;
        this.slots = slots;
        this.publisher = publisher;
    }

    @Override
    public Revision newest() {
        return publisher.latest();
    }

    @Override
    public Revision hold(int slot) {
        while (true) {
            Revision r = publisher.latest();
            registry.hold(slot, r);
            if (publisher.latest() == r) {
                return r;
            }
        }
    }

    @Override
    public void release(int slot) {
        slots.release(slot);
    }
}
