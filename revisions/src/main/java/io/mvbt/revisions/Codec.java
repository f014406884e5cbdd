// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import org.agrona.DirectBuffer;

/**
 * Turns values of one type into the bytes a tree stores, and back. A codec used for keys is
 * order-preserving: the unsigned byte order of two encodings (the order of a tree's keys) is the
 * order of the values, as each codec of {@link Codecs} documents. Used by {@link TypedTree}.
 *
 * @param <T> the type of the values
 */
public interface Codec<T> {
    /** The bytes of {@code value} (never null). */
    byte[] encode(T value);

    /**
     * The value whose encoding is {@code length} bytes at {@code offset} of {@code buffer}. The
     * buffer may wrap page memory of a snapshot: a decoder copies what it keeps.
     */
    T decode(DirectBuffer buffer, int offset, int length);

    /** Every encoding has this many bytes, or -1 if it varies (a component of {@link Codecs#pair} then escapes it). */
    default int fixedLength() {
        return -1;
    }
}
