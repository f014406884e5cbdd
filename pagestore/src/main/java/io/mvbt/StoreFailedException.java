// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** The store refuses writes after a failure that left its in-memory state unsure (a failed fsync, say); reopen it. */
public class StoreFailedException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public StoreFailedException(String message) {
        super(message);
    }

    public StoreFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
