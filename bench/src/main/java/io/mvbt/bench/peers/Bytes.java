// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import org.agrona.DirectBuffer;

/** Unsigned lexicographic comparison, the key order of every store under test. */
final class Bytes {
    private Bytes() {
    }

    static int compare(DirectBuffer a, DirectBuffer b) {
        int n = Math.min(a.capacity(), b.capacity());
        for (int i = 0; i < n; i++) {
            int d = (a.getByte(i) & 0xff) - (b.getByte(i) & 0xff);
            if (d != 0) {
                return d;
            }
        }
        return a.capacity() - b.capacity();
    }
}
