// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.util.Locale;

/**
 * How the values of an attribute compare. Both rules drop leading and trailing spaces and fold
 * inner runs of spaces to one (RFC 4518's insignificant space handling, for the space character);
 * {@link #CASE_IGNORE} also lower-cases (Unicode, locale-independent). The normalized form is what
 * the indexes store and what equality, substring and ordering compare (as UTF-8 bytes, unsigned).
 */
public enum Matching {
    CASE_IGNORE, CASE_EXACT;

    public String normalize(String value) {
        StringBuilder out = new StringBuilder(value.length());
        boolean space = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == ' ') {
                space = out.length() > 0;
                continue;
            }
            if (space) {
                out.append(' ');
                space = false;
            }
            out.append(c);
        }
        String s = out.toString();
        return this == CASE_IGNORE ? s.toLowerCase(Locale.ROOT) : s;
    }
}
