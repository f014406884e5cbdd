// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

/** An add, move or rename would create an entry whose DN is already taken. */
public class EntryExistsException extends DirectoryException {
    private static final long serialVersionUID = 1L;

    public EntryExistsException(String message) {
        super(message);
    }
}
