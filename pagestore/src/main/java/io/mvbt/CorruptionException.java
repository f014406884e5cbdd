// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/**
 * Stored data failed a check (checksum, bounds, page type, order). The message names the page;
 * {@link #pageNo()} gives it, or -1 when the damage is not in one page (a truncated file, say).
 */
public class CorruptionException extends MvbtException {
    private static final long serialVersionUID = 1L;
    private final long pageNo;

    public CorruptionException(long pageNo, String message) {
        super(pageNo >= 0 ? "page " + pageNo + ": " + message : message);
        this.pageNo = pageNo;
    }

    public CorruptionException(long pageNo, String message, Throwable cause) {
        super(pageNo >= 0 ? "page " + pageNo + ": " + message : message, cause);
        this.pageNo = pageNo;
    }

    /** The damaged page, or -1. */
    public long pageNo() {
        return pageNo;
    }
}
