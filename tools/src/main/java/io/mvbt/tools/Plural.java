// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

/** Counts with their noun in the right number: "1 tree", "2 trees", "1,000 entries". */
final class Plural {
    private Plural() {
    }

    /** {@code n} (with thousands separators) and {@code singular}, made plural with an s unless n is 1. */
    static String of(long n, String singular) {
        return of(n, singular, singular + "s");
    }

    /** For nouns whose plural is not an added s ("entry", "entries"). */
    static String of(long n, String singular, String plural) {
        return String.format("%,d %s", n, n == 1 ? singular : plural);
    }

    /** "1 entry", "2 entries". */
    static String entries(long n) {
        return of(n, "entry", "entries");
    }
}
