// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

/**
 * Entries of a history table at one revision: {@code total = articles + remembered}.
 *
 * @param total      every entry
 * @param articles   entries with a storage token
 * @param remembered Message-IDs remembered without an article
 */
public record HistoryCounts(long total, long articles, long remembered) {
}
