// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** createTree named a tree that already exists. */
public class TreeExistsException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public TreeExistsException(String message) {
        super(message);
    }
}
