// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** beginWrite waited longer than its timeout for the running write transaction to end. */
public class WriteTimeoutException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public WriteTimeoutException(String message) {
        super(message);
    }
}
