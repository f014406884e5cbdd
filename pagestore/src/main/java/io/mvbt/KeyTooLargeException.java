// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** A key is longer than the store's limit (a quarter of a page). */
public class KeyTooLargeException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public KeyTooLargeException(String message) {
        super(message);
    }
}
