// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

/** Exit statuses that scripts can rely on. */
final class ExitCodes {
    /** Done; for {@code check}: the store is clean. */
    static final int OK = 0;
    /** The store is damaged ({@code check} found problems, or a read met a damaged page). */
    static final int DAMAGED = 1;
    /** The command line was wrong (picocli's usage status). */
    static final int USAGE = 2;
    /** Anything else failed: a missing or locked store, an I/O error, a malformed dump. */
    static final int FAILED = 3;

    private ExitCodes() {
    }
}
