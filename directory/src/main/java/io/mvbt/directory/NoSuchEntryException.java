// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

/** The operation names an entry (or a parent or base) that does not exist. */
public class NoSuchEntryException extends DirectoryException {
    private static final long serialVersionUID = 1L;

    public NoSuchEntryException(String message) {
        super(message);
    }
}
