// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.time.Duration;

/**
 * What an expiry run did (or, in a dry run, would do).
 *
 * @param examined       entries decided for: the sum of kept, toRemembered, deleted and
 *                       rememberedKept (an entry a writer deleted before its change is not counted)
 * @param kept           articles kept (rewritten ones included)
 * @param rewritten      articles kept under a new token
 * @param toRemembered   articles that became remembered entries
 * @param deleted        entries deleted: remembered ones past the remember horizon, and articles
 *                       that expired and were already past it
 * @param rememberedKept remembered entries kept
 * @param transactions   write transactions committed (0 in a dry run)
 * @param dryRun         whether nothing was changed
 * @param elapsed        time taken
 */
public record ExpireReport(long examined, long kept, long rewritten, long toRemembered, long deleted,
        long rememberedKept, long transactions, boolean dryRun, Duration elapsed) {
}
