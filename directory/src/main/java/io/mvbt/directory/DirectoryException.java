// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import io.mvbt.MvbtException;

/** Base type of the directory's own errors: bad names and filters, missing or existing entries. */
public class DirectoryException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public DirectoryException(String message) {
        super(message);
    }

    public DirectoryException(String message, Throwable cause) {
        super(message, cause);
    }
}
