// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** No revision is kept under the name asked for (never retained, or released since). */
public class NamedRevisionNotFoundException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public NamedRevisionNotFoundException(String message) {
        super(message);
    }
}
