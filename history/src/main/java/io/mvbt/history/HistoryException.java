// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import io.mvbt.MvbtException;

/** A history table refused or could not do something: a damaged entry, a table of another kind. */
public class HistoryException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public HistoryException(String message) {
        super(message);
    }

    public HistoryException(String message, Throwable cause) {
        super(message, cause);
    }
}
