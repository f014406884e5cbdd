// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import io.mvbt.ClosedException;

/**
 * A resume token names a search whose snapshot is gone (closed, or expired by the slow-reader
 * policy): the results it would continue cannot be read on their revision any more. Start the
 * search again.
 */
public class ResumeTokenExpiredException extends ClosedException {
    private static final long serialVersionUID = 1L;

    public ResumeTokenExpiredException(String message) {
        super(message);
    }

    ResumeTokenExpiredException(String message, Throwable cause) {
        super(message);
        initCause(cause);
    }
}
