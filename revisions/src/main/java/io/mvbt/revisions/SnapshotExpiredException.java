package io.mvbt.revisions;

/**
 * A snapshot was read after a {@link SlowReaderPolicy} expired it for holding an old revision too
 * long. Close it (try-with-resources does) so that the pages it pins can be reused, and open a new one.
 */
public class SnapshotExpiredException extends ClosedException {
    private static final long serialVersionUID = 1L;

    public SnapshotExpiredException(String message) {
        super(message);
    }
}
