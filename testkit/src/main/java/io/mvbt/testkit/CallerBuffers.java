// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.nio.ByteBuffer;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The kinds of buffer a caller may hand the zero-copy API, drawn as tests draw key lengths: bytes
 * in a heap array at an offset, and bytes in a fresh direct buffer that nothing else keeps
 * reachable (so its memory may be freed as soon as the store stops keeping it alive).
 */
public enum CallerBuffers {
    /** A heap array with bytes before and after the ones wrapped. */
    HEAP_AT_OFFSET {
        @Override
        public UnsafeBuffer wrap(byte[] bytes) {
            byte[] larger = new byte[bytes.length + 2 * PAD];
            System.arraycopy(bytes, 0, larger, PAD, bytes.length);
            return new UnsafeBuffer(larger, PAD, bytes.length);
        }
    },
    /** A direct buffer of its own, allocated for this call. */
    FRESH_DIRECT {
        @Override
        public UnsafeBuffer wrap(byte[] bytes) {
            ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length);
            direct.put(bytes).flip();
            return new UnsafeBuffer(direct);
        }
    };

    private static final int PAD = 3;

    /** A buffer of this kind holding a copy of {@code bytes}, and nothing else. */
    public abstract UnsafeBuffer wrap(byte[] bytes);

    /** One of the kinds, or null (meaning: use the {@code byte[]} method), chosen by {@code draw}. */
    public static CallerBuffers drawn(int draw) {
        int i = Math.floorMod(draw, values().length + 1);
        return i == values().length ? null : values()[i];
    }

    /** A copy of a buffer's bytes. */
    public static byte[] bytes(DirectBuffer buffer) {
        byte[] out = new byte[buffer.capacity()];
        buffer.getBytes(0, out);
        return out;
    }
}
