// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.util.Arrays;
import java.util.Objects;

/**
 * One entry of a history table: an article (a storage token and its times) or a remembered
 * Message-ID (no token: seen, rejected or expired, kept so the article is not taken again).
 * Times are seconds since the epoch; a time that is not known is 0 (anything given as 0 or less
 * becomes 0). A remembered entry has no expiry time. Immutable.
 */
public final class HistoryEntry {
    private final byte[] hash;
    private final long arrived;
    private final long posted;
    private final long expires;
    private final StorageToken token;

    private HistoryEntry(byte[] hash, long arrived, long posted, long expires, StorageToken token) {
        this.hash = hash;
        this.arrived = known(arrived);
        this.posted = known(posted);
        this.expires = token == null ? 0 : known(expires);
        this.token = token;
    }

    /** An article: its Message-ID hash (16 bytes, copied), times, and storage token (not null). */
    public static HistoryEntry article(byte[] hash, long arrived, long posted, long expires, StorageToken token) {
        MessageIdHash.check(hash);
        Objects.requireNonNull(token, "an article has a storage token");
        return new HistoryEntry(hash.clone(), arrived, posted, expires, token);
    }

    /** A remembered Message-ID: its hash (16 bytes, copied), arrival and posting times. */
    public static HistoryEntry remembered(byte[] hash, long arrived, long posted) {
        MessageIdHash.check(hash);
        return new HistoryEntry(hash.clone(), arrived, posted, 0, null);
    }

    /** An article if {@code token} is not null, else a remembered entry (its expiry dropped). */
    public static HistoryEntry of(byte[] hash, long arrived, long posted, long expires, StorageToken token) {
        MessageIdHash.check(hash);
        return new HistoryEntry(hash.clone(), arrived, posted, expires, token);
    }

    /** Takes ownership of {@code hash}: for decoders that made a fresh array. */
    static HistoryEntry owning(byte[] hash, long arrived, long posted, long expires, StorageToken token) {
        return new HistoryEntry(hash, arrived, posted, expires, token);
    }

    private static long known(long time) {
        return time <= 0 ? 0 : time;
    }

    /** The Message-ID hash (a copy). */
    public byte[] hash() {
        return hash.clone();
    }

    byte[] hashRef() {
        return hash;
    }

    /** Arrival time in seconds, 0 if not known. */
    public long arrived() {
        return arrived;
    }

    /** Posting time in seconds, 0 if not known. */
    public long posted() {
        return posted;
    }

    /** Expiry time in seconds, 0 if none (always 0 for a remembered entry). */
    public long expires() {
        return expires;
    }

    /** The storage token, or null for a remembered entry. */
    public StorageToken token() {
        return token;
    }

    public boolean isArticle() {
        return token != null;
    }

    public boolean isRemembered() {
        return token == null;
    }

    /** The time the remember horizon is measured against: posted, or arrived if posting time is unknown. */
    public long rememberTime() {
        return posted > 0 ? posted : arrived;
    }

    /** This entry as a remembered one: same hash, arrival and posting times; no token, no expiry. */
    public HistoryEntry toRemembered() {
        return token == null ? this : new HistoryEntry(hash, arrived, posted, 0, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HistoryEntry e && Arrays.equals(hash, e.hash) && arrived == e.arrived
                && posted == e.posted && expires == e.expires && Objects.equals(token, e.token);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(hash) * 31 + Long.hashCode(arrived);
    }

    @Override
    public String toString() {
        return "[" + MessageIdHash.toText(hash) + "] " + (token == null ? "remembered" : token.toText())
                + " arrived=" + arrived + " posted=" + posted + " expires=" + expires;
    }
}
