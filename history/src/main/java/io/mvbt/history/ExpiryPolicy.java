// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

/**
 * Decides, during {@link HistoryTable#expire}, what becomes of each article (INN's expire
 * callback). Called outside any write transaction, so a slow policy (one that asks the article
 * store whether the article still exists, say) does not hold up writers; the exception is an
 * article that changed while its page was being decided, which is decided again inside the write
 * transaction that applies the page (it holds up writers for that call).
 */
@FunctionalInterface
public interface ExpiryPolicy {
    /** The decision for {@code article} at {@code now} (seconds since the epoch). */
    ExpiryDecision decide(HistoryEntry article, long now);

    /**
     * The standard policy: an article with an expiry time is kept until then; one without is kept
     * for {@code retentionDays} after it arrived (after it was posted if its arrival time is not
     * known; an article with neither time has expired). Expired articles become remembered.
     */
    static ExpiryPolicy standard(double retentionDays) {
        if (!(retentionDays >= 0) || Double.isInfinite(retentionDays)) {
            throw new IllegalArgumentException("retention of " + retentionDays + " days");
        }
        long retention = Math.round(retentionDays * 86_400);
        return (article, now) -> {
            long until;
            if (article.expires() > 0) {
                until = article.expires();
            } else {
                long since = article.arrived() > 0 ? article.arrived() : article.posted();
                // Saturating: a retention meant as "keep forever" must not wrap into the past.
                until = since <= 0 ? 0 : since > Long.MAX_VALUE - retention ? Long.MAX_VALUE : since + retention;
            }
            return now >= until ? ExpiryDecision.remember() : ExpiryDecision.keep();
        };
    }
}
