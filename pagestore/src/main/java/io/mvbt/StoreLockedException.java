// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** Another process (or another open store in this JVM) holds the writer lock of a store file. */
public class StoreLockedException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public StoreLockedException(String message) {
        super(message);
    }
}
