// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.time.Duration;

/**
 * What {@link HistoryImport} did.
 *
 * @param lines      lines read
 * @param articles   articles imported
 * @param remembered remembered entries imported
 * @param duplicates lines whose hash an earlier line had (the first one is kept, as dbz does)
 * @param malformed  lines skipped because they do not parse (only with {@code skipMalformed})
 * @param runs       sorted runs spilled to temporary files (0: sorted in memory)
 * @param elapsed    time taken
 */
public record ImportReport(long lines, long articles, long remembered, long duplicates, long malformed, int runs,
        Duration elapsed) {
}
