// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** Every slot of the reader table is taken: no snapshot can be opened until one closes. */
public class ReadersFullException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public ReadersFullException(String message) {
        super(message);
    }
}
