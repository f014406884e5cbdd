// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

/** A command cannot do what was asked; its message is all the user needs. */
final class CommandException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CommandException(String message) {
        super(message);
    }
}
