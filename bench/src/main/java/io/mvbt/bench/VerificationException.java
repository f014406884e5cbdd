// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

/** A read returned something other than what was written: the run fails. */
public final class VerificationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public VerificationException(String message) {
        super(message);
    }
}
