// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

/** A command cannot do what was asked; its message is all the user needs, its status says what kind of failure. */
final class CommandException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CommandException(String message) {
        this(ExitCodes.FAILED, message);
    }

    CommandException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /** The process's exit status ({@link ExitCodes}). */
    int exitCode() {
        return exitCode;
    }
}
