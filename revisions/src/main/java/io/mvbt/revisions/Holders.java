// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;

/**
 * The revisions that pin pages at one look, ascending and distinct: open snapshots and running
 * checkpoints, the durable revision (recovery may open at it), named revisions, and whatever
 * readers elsewhere hold. Used by whoever holds the writer permit, and refilled at each look.
 */
final class Holders {
    private final ReaderRegistry registry;
    private final Publisher publisher;
    /** Whether the store has a durable revision to keep (not in memory). */
    private final boolean durable;
    /** Revisions kept under a name, held until released. */
    private final NamedRevisions named;
    private long[] revisions = new long[128];
    private int count;
    /** Oldest revision a snapshot or checkpoint held at the last look, or -1. */
    private long oldestReader = -1;
    /** False if a holder may have been missed by the last look ({@link #someUnknown}). */
    private boolean allKnown;

    Holders(ReaderRegistry registry, Publisher publisher, boolean durable, NamedRevisions named) {
        this.registry = registry;
        this.named = named;
        this.publisher = publisher;
        this.durable = durable;
    }

    /** Looks at every holder now, with what {@code peers} know readers elsewhere hold. */
    Holders collect(Peers peers) {
        if (revisions.length < registry.capacity() + 1) {
            revisions = new long[registry.capacity() * 2 + 1];
        }
        count = registry.collect(revisions);
        allKnown = true;
        oldestReader = count > 0 ? revisions[0] : -1;
        if (durable) {
            add(publisher.durableRevision());
        }
        // Nothing recovers a store in memory: a released revision needs no hold until its release is durable.
        named.addHeld(this, durable ? publisher.durableRevision() : Long.MAX_VALUE);
        peers.addHeld(this);
        return this;
    }

    /** Adds a revision, keeping them ascending and distinct. */
    void add(long revision) {
        int at = Arrays.binarySearch(revisions, 0, count, revision);
        if (at >= 0) {
            return;
        }
        at = -at - 1;
        if (count == revisions.length) {
            revisions = Arrays.copyOf(revisions, count * 2);
        }
        System.arraycopy(revisions, at, revisions, at + 1, count - at);
        revisions[at] = revision;
        count++;
    }

    /**
     * The peers could not look at every reader elsewhere yet (a writer that took over storage
     * shared with other hosts, before its first look): one may hold any revision older than the newest.
     */
    void someUnknown() {
        allKnown = false;
    }

    /** Whether the last look saw every holder (see {@link #someUnknown}). */
    boolean allKnown() {
        return allKnown;
    }

    /** The revisions held, ascending: the first {@link #count()} entries. */
    long[] revisions() {
        return revisions;
    }

    int count() {
        return count;
    }

    /** Oldest revision a snapshot or checkpoint held at the last look, or -1. */
    long oldestReader() {
        return oldestReader;
    }
}
