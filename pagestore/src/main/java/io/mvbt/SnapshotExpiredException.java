// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/**
 * A snapshot was read after a {@code SlowReaderPolicy} expired it for holding an old revision too
 * long, or, for a reader of a store kept on Redis, after its registration with the writer lapsed
 * (the reader stalled past its lease): the writer may have freed its pages. Close it
 * (try-with-resources does) and open a new one.
 */
public class SnapshotExpiredException extends ClosedException {
    private static final long serialVersionUID = 1L;

    public SnapshotExpiredException(String message) {
        super(message);
    }
}
