// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One store under test, as the suites see it. Every adapter uses its store's fastest ordinary
 * API; keys order as unsigned bytes in every store. Key and value arrays passed in are reused by
 * the caller after the call returns: an adapter that keeps them must copy.
 *
 * <p>Writes come from one thread. Each reading thread opens its own {@link Reader}.
 */
public interface KvStore extends AutoCloseable {
    /** Writes one entry in a transaction of its own, durable as the store was opened. */
    void put(byte[] key, byte[] value);

    /** Starts a transaction that several puts share. */
    Batch batch();

    /** Opens a consistent view of the newest committed state. */
    Reader reader();

    /**
     * Deletes every key in {@code [from, to)} in one transaction, by the store's own best method
     * (see {@link #deleteRangeMethod()}); returns how many keys it deleted, or -1 if the store
     * does not say.
     */
    long deleteRange(byte[] from, byte[] to);

    /** How {@link #deleteRange} works in this store, for the report. */
    String deleteRangeMethod();

    /** Makes everything committed durable and the files settle (used before measuring footprint). */
    void sync();

    /** Bytes the store's files take, or -1 for a store that has no files. */
    long bytesOnDisk();

    @Override
    void close();

    /** A write transaction holding several puts. */
    interface Batch {
        void put(byte[] key, byte[] value);

        void commit();
    }

    /** A snapshot (or the nearest thing the store has). Used by one thread. */
    interface Reader extends AutoCloseable {
        /** Looks {@code key} up; on success {@code value} is wrapped around the value bytes. */
        boolean get(byte[] key, UnsafeBuffer value);

        /** A cursor over this reader's view. */
        Scan scan();

        @Override
        void close();
    }

    /**
     * A cursor. The suites move it in one direction per positioning: {@link #first()} or
     * {@link #seek} then {@link #next()}, or {@link #last()} then {@link #prev()}.
     */
    interface Scan extends AutoCloseable {
        boolean first();

        boolean last();

        /** Moves to the first key {@code >= key}. */
        boolean seek(byte[] key);

        boolean next();

        boolean prev();

        /** The current key; valid until the cursor moves. */
        DirectBuffer key();

        /** The current value; valid until the cursor moves. */
        DirectBuffer value();

        @Override
        void close();
    }
}
