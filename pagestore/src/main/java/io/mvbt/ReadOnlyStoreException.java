// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/** A write (or a sync) was asked of a store opened with {@code Store.openReadOnly}. */
public class ReadOnlyStoreException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public ReadOnlyStoreException(String message) {
        super(message);
    }
}
