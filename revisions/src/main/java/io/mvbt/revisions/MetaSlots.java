// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.pagestore.PageStore;

/**
 * Which meta slot the next write goes to. Protected are the last durable meta (the fallback after
 * a power cut) and a checkpoint meta not yet synced; the newest meta is kept unless another slot
 * holds the same revision (so a process killed while a meta is half written still finds the last
 * commit). Four slots always leave one to write. Guarded by the store's meta lock.
 */
final class MetaSlots {
    private final long[] sequence = new long[PageStore.META_SLOTS];
    private final long[] revision = new long[PageStore.META_SLOTS];
    private int durable = -1;
    private int pending = -1;
    private long nextSequence = 1;

    MetaSlots() {
        java.util.Arrays.fill(sequence, -1);
        java.util.Arrays.fill(revision, -1);
    }

    /** Forgets every slot, before they are read again (writers that take turns). */
    void reset() {
        java.util.Arrays.fill(sequence, -1);
        java.util.Arrays.fill(revision, -1);
        durable = -1;
        pending = -1;
        nextSequence = 1;
    }

    /** Records what a slot holds after recovery or a write. */
    void wrote(int slot, long seq, long rev) {
        sequence[slot] = seq;
        revision[slot] = rev;
        nextSequence = Math.max(nextSequence, seq + 1);
    }

    /** Makes later sequences larger than {@code seq} (a rejected meta keeps its slot until overwritten). */
    void seen(long seq) {
        nextSequence = Math.max(nextSequence, seq + 1);
    }

    long takeSequence() {
        return nextSequence++;
    }

    /** The slot holding the newest meta. */
    int head() {
        int head = -1;
        for (int i = 0; i < sequence.length; i++) {
            if (sequence[i] >= 0 && (head < 0 || sequence[i] > sequence[head])) {
                head = i;
            }
        }
        return head;
    }

    long sequenceOf(int slot) {
        return sequence[slot];
    }

    /** A slot that the next meta may overwrite. */
    int choose() {
        int head = head();
        boolean headCopied = false;
        for (int i = 0; i < sequence.length; i++) {
            if (i != head && head >= 0 && revision[i] == revision[head] && sequence[i] >= 0) {
                headCopied = true;
            }
        }
        int best = -1;
        for (int i = 0; i < sequence.length; i++) {
            if (i == durable || i == pending || (i == head && !headCopied)) {
                continue;
            }
            if (best < 0 || sequence[i] < sequence[best]) {
                best = i;
            }
        }
        if (best < 0) {
            throw new IllegalStateException("no meta slot free: durable " + durable + ", pending " + pending
                    + ", head " + head);
        }
        return best;
    }

    void setDurable(int slot) {
        durable = slot;
    }

    void setPending(int slot) {
        pending = slot;
    }

    int pending() {
        return pending;
    }
}
