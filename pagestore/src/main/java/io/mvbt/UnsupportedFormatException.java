// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/**
 * The store was written by a newer release of mvbt, in a format this release cannot read. Nothing
 * was read past the meta page or written: open it with that release (or a newer one).
 */
public class UnsupportedFormatException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public UnsupportedFormatException(String message) {
        super(message);
    }
}
