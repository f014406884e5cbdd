// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** The storage under the store failed (an I/O error, a full disk, a failed fsync). */
public class StorageException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }

    public StorageException(String message) {
        super(message);
    }
}
