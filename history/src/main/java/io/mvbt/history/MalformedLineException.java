// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

/** A line of an INN text history that does not parse; names the line number (from 1). */
public class MalformedLineException extends HistoryException {
    private static final long serialVersionUID = 1L;

    private final long lineNumber;

    public MalformedLineException(long lineNumber, String problem) {
        super("line " + lineNumber + ": " + problem);
        this.lineNumber = lineNumber;
    }

    /** The line, counted from 1. */
    public long lineNumber() {
        return lineNumber;
    }
}
