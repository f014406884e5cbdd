// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

/**
 * Exit statuses that scripts can rely on, the same for every command (docs/tools.md lists them, and
 * {@code mvbt --help} too). With {@code --json}, a failure also prints one JSON object on standard
 * output naming its status (see {@link Main}).
 */
final class ExitCodes {
    /** Done; for {@code check}: the store is clean. */
    static final int OK = 0;
    /** The store opened and is damaged ({@code check} found problems, or a read met a damaged page). */
    static final int DAMAGED = 1;
    /** The command line was wrong (picocli's usage status); {@code mvbt} alone prints its usage so. */
    static final int USAGE = 2;
    /** Anything else failed: an I/O error, a malformed dump, an output that cannot be written. */
    static final int FAILED = 3;
    /**
     * No store could be opened: no such file, an empty file, not an mvbt store (no meta page found;
     * a store whose every meta page is damaged looks the same), locked by a writer, no permission.
     */
    static final int CANNOT_OPEN = 4;
    /** What was asked for is not there: {@code get}'s tree or key, {@code history lookup}'s Message-ID, {@code changes}' revision. */
    static final int NOT_FOUND = 5;

    /** A word for the status, for the {@code --json} error object. */
    static String name(int status) {
        return switch (status) {
            case OK -> "ok";
            case DAMAGED -> "damaged";
            case USAGE -> "usage";
            case CANNOT_OPEN -> "cannotOpen";
            case NOT_FOUND -> "notFound";
            default -> "failed";
        };
    }

    private ExitCodes() {
    }
}
