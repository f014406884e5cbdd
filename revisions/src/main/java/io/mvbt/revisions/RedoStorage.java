// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;

/**
 * Where a store's {@link RedoLog} lives: segment files named by the first revision they hold.
 * Files beside the store ({@link RedoFiles}), or a simulated disk in tests.
 */
interface RedoStorage {
    /** The first revisions of the segments there, ascending. */
    long[] segments();

    /** Creates an empty segment, its name durable when this returns. */
    Segment create(long firstRevision);

    /** Opens an existing segment to read it. */
    Segment open(long firstRevision);

    /** Deletes a segment; {@link #syncDeletes} makes deletions durable. */
    void delete(long firstRevision);

    void syncDeletes();

    /** Keeps a damaged segment out of the log but on the disk ({@code NAME.damaged}), for whoever looks into it. */
    void setAside(long firstRevision);

    /** Names a segment in messages. */
    String describe(long firstRevision);

    /** One segment file. Failures are {@link io.mvbt.StorageException}s. */
    interface Segment extends AutoCloseable {
        long size();

        /** Writes all of {@code source} at {@code position}. */
        void write(ByteBuffer source, long position);

        /** Reads into {@code target} from {@code position}; returns the bytes read, fewer at the end. */
        int read(ByteBuffer target, long position);

        /** Cuts the segment to {@code size} bytes (made durable by the next {@link #sync()}). */
        void truncate(long size);

        /** Makes everything written durable (fdatasync). */
        void sync();

        @Override
        void close();
    }
}
