// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** The revision being read or written has no tree of that name. */
public class TreeNotFoundException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public TreeNotFoundException(String message) {
        super(message);
    }
}
