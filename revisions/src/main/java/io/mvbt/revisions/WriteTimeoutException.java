package io.mvbt.revisions;

import io.mvbt.pagestore.MvbtException;

/** beginWrite waited longer than its timeout for the running write transaction to end. */
public class WriteTimeoutException extends MvbtException {
    private static final long serialVersionUID = 1L;

    public WriteTimeoutException(String message) {
        super(message);
    }
}
