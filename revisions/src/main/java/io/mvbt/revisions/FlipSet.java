// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.Arrays;

/**
 * The pages whose in-use state differs from the persisted free map. Toggling is O(1) (a bit and,
 * for a new member, a log entry); the log may hold stale or repeated entries and is compacted to
 * exactly the members when they are listed, once per commit.
 */
final class FlipSet {
    private final PageSet bits = new PageSet();
    private long[] log = new long[64];
    private int logSize;
    private int size;

    void toggle(long pageNo) {
        if (bits.clear(pageNo)) {
            size--;
        } else {
            add(pageNo);
        }
    }

    void add(long pageNo) {
        if (bits.set(pageNo)) {
            size++;
            if (logSize == log.length) {
                if (logSize > 4 * size) {
                    compact();
                } else {
                    log = Arrays.copyOf(log, log.length * 2);
                }
            }
            log[logSize++] = pageNo;
        }
    }

    boolean contains(long pageNo) {
        return bits.get(pageNo);
    }

    int size() {
        return size;
    }

    void clear() {
        for (int i = 0; i < logSize; i++) {
            bits.clear(log[i]);
        }
        logSize = 0;
        size = 0;
    }

    /** Rewrites the log to hold each member once; returns how many (members are {@link #member}(0..n-1)). */
    int compact() {
        int n = 0;
        for (int i = 0; i < logSize; i++) {
            long pageNo = log[i];
            // Clearing the bit as a member is kept drops later repeats of it.
            if (bits.clear(pageNo)) {
                log[n++] = pageNo;
            }
        }
        for (int i = 0; i < n; i++) {
            bits.set(log[i]);
        }
        logSize = n;
        return n;
    }

    long member(int i) {
        return log[i];
    }

    /** Makes the members those of {@code other}. */
    void copyFrom(FlipSet other) {
        clear();
        int n = other.compact();
        for (int i = 0; i < n; i++) {
            add(other.member(i));
        }
    }
}
