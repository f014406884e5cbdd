// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/**
 * The store's newest commits are held in a shadow file (their writer kept its recent pages in a
 * memory file system until their checkpoint), and the store was opened without naming a shadow
 * directory. Nothing was written: open it again with the directory its writer used; it then opens
 * at its newest commit if the shadow is there, or at its last checkpoint if it is gone (a reboot).
 */
public class ShadowDirectoryMissingException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public ShadowDirectoryMissingException(String message) {
        super(message);
    }
}
