// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/**
 * The file (or page store) opened is not an mvbt store: none of its meta slots holds the mvbt
 * magic, so it is some other file, not a damaged store (that is a {@link CorruptionException}).
 * Nothing was written to it. The message names it; {@link #where()} gives it.
 */
public class NotAStoreException extends MvbtException {
    private static final long serialVersionUID = 1L;
    private final String where;

    public NotAStoreException(String where, String message) {
        super(message);
        this.where = where;
    }

    /** The path of the file, or the description of the page store, that is not a store. */
    public String where() {
        return where;
    }
}
