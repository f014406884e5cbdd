// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

/**
 * Where a paged search goes on: which search, on which revision, from which position. It is text
 * ({@link #encode()}, {@link #decode}) so it can travel as an LDAP paged-results cookie. A token
 * continues only on the revision it names, and only while the search that issued it still holds
 * that revision's snapshot.
 */
public record ResumeToken(long search, long revision, long position) {
    private static final String PREFIX = "mvbt1.";

    public ResumeToken {
        if (position < 0) {
            throw new IllegalArgumentException("position must not be negative: " + position);
        }
    }

    public String encode() {
        return PREFIX + Long.toHexString(search) + '.' + Long.toHexString(revision) + '.' + Long.toHexString(position);
    }

    /** Parses {@link #encode()}'s form; a malformed token is an {@link IllegalArgumentException}. */
    public static ResumeToken decode(String text) {
        if (text == null || !text.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a resume token (expected '" + PREFIX + "...'): " + text);
        }
        String[] parts = text.substring(PREFIX.length()).split("\\.", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("a resume token has 3 fields after '" + PREFIX + "': " + text);
        }
        try {
            return new ResumeToken(Long.parseUnsignedLong(parts[0], 16), Long.parseUnsignedLong(parts[1], 16),
                    Long.parseUnsignedLong(parts[2], 16));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed resume token: " + text, e);
        }
    }
}
