// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** A revision is already kept under the name a retain asked for: release it first. */
public class NamedRevisionExistsException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public NamedRevisionExistsException(String message) {
        super(message);
    }
}
