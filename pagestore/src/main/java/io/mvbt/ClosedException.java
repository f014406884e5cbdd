// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** A store, snapshot, transaction or cursor was used after it was closed or finished. */
public class ClosedException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public ClosedException(String message) {
        super(message);
    }
}
