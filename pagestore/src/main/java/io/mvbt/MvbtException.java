// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** Base type of every exception mvbt throws on purpose. */
public class MvbtException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MvbtException(String message) {
        super(message);
    }

    public MvbtException(String message, Throwable cause) {
        super(message, cause);
    }
}
